"""MCP: the multiclass perceptron with k prototypes (Crammer & Singer's ultraconservative family)."""
from __future__ import annotations

import numpy as np

from ordrank.algorithms._ordinal import TOO_LARGE, check_finite
from ordrank.algorithms.online._base import OnlineOrdinalRegressor


class MulticlassPerceptron(OnlineOrdinalRegressor):
    r"""One prototype per rank, rank order ignored: the under-constrained baseline of the PRank paper.

    Prediction: :math:`\hat y = \arg\max_r W_r\cdot x` (ties go to the lowest rank).

    Update, only on a mistake, uniform over the error set
    :math:`E = \{ r \ne y : W_r\cdot x \ge W_y\cdot x \}`:

    .. math:: W_y \leftarrow W_y + x, \qquad W_r \leftarrow W_r - x/|E| \quad (r \in E).

    Parameters
    ----------
    n_epochs, shuffle, random_state, average : see :class:`~ordrank.algorithms.PRank`.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        The prototypes ``W``, row r−1 for rank r.
    classes_ : ndarray of shape (n_classes,)
    """

    _state_keys = ("coef",)


    def init_arrays(self, n_copies, n_features, n_ranks):
        return {"coef": np.zeros((n_copies, n_ranks, n_features))}

    def decision(self, state, X):
        """The k prototype scores W_r·x."""
        return np.einsum("...kd,...d->...k", state["coef"], X)

    def decision_function(self, X):
        """Prototype scores (n, k); for k = 2, scikit-learn's binary convention W_2·x − W_1·x."""
        scores = super().decision_function(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def rank(self, state, X):
        return self.decision(state, X).argmax(-1) + 1

    def step(self, state, X, y):
        W = state["coef"]
        scores = self.decision(state, X)  # (S, k)
        check_finite(self, "the scores W_r·x", scores, X, TOO_LARGE)  # huge inputs: Diverged
        y_hat = scores.argmax(-1) + 1
        rows = np.arange(len(y))
        true = scores[rows, y - 1]
        error_set = scores >= true[:, None]
        error_set[rows, y - 1] = False
        error_set &= (y_hat != y)[:, None]
        size = error_set.sum(1)
        coeffs = error_set / -np.maximum(size, 1)[:, None]
        coeffs[rows, y - 1] = size > 0
        W += coeffs[:, :, None] * X[:, None, :]
        return y_hat
