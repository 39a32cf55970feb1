r"""PredtronClassifier: the Predtron for binary and multiclass classification with the 0-1 loss
(Section 3 of Jain, Natarajan & Tewari, NIPS 2015)."""
from __future__ import annotations

from functools import lru_cache

from sklearn.metrics import accuracy_score

from ordrank.algorithms.structured._finite import FinitePredtron
from ordrank.algorithms.structured.losses import MatrixLoss
from ordrank.algorithms.structured.spaces import FiniteSpace


class PredtronClassifier(FinitePredtron):
    r"""Binary and multiclass classification by the Predtron with the 0-1 loss.

    Classes are numbered 1..k in sorted order (no order is used). Binary (k = 2): rep = −1, +1 in
    R^1, t = w·x, pred = class 2 if t > 0 else class 1; on a mistake σ̃ is the wrong class, so
    ∇ = −2 y± x and the update w ← w + 2η y± x is the perceptron's (Rosenblatt) up to the factor
    2η, which does not change any prediction from w = 0. Multiclass (k ≥ 3): rep(σ) = e_σ,
    t = W x, pred = argmax (ties: the lowest class); on a mistake σ̃ = argmax_{σ≠y} t_σ and
    W_y ← W_y + ηx, W_σ̃ ← W_σ̃ − ηx (the max update of Crammer & Singer's multiclass perceptron;
    its surrogate is the multiclass hinge loss max(0, 1 + max_{σ≠y} t_σ − t_y)).

    ``score`` is the accuracy. Parameters and ``margin="l1"`` as in
    :class:`~ordrank.algorithms.structured.PredtronOrdinal`.

    Attributes
    ----------
    coef_ : ndarray (1, n_features) if binary, else (n_classes, n_features)
    dual_coef_ : ndarray, same shape (``margin="l1"`` only)
    classes_ : ndarray (n_classes,)
    """

    _ordered_labels = False  # nominal classes: labels are sorted, never taken in a declared order

    @staticmethod
    @lru_cache(maxsize=32)
    def parts(n_ranks):
        space = FiniteSpace.signs() if n_ranks == 2 else FiniteSpace.standard_basis(n_ranks)
        return space, MatrixLoss.zero_one(n_ranks)

    def score(self, X, y, sample_weight=None):
        """Accuracy: the share of examples whose class is predicted exactly."""
        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)
