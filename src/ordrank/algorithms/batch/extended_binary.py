r"""Ordinal regression by extended binary classification (Li & Lin, NIPS 2006).

A rank question "is the rank of x above k?" is asked for every k = 1..K−1 and answered by ONE
binary classifier g(x, k) trained on extended examples:

.. math:: \big((x_n, k),\; Y_{n,k} = +1 \text{ if } y_n > k \text{ else } -1,\;
          W_{n,k} = |C(y_n, k) - C(y_n, k+1)|\big), \qquad k = 1..K-1,

and the rank is the count of "yes" answers: :math:`r(x) = 1 + \sum_k [g(x, k) > 0]`.
For a V-shaped cost C (each row non-increasing up to the diagonal, zero on it, then
non-decreasing) the weight W is the marginal cost of answering question k wrong, and the paper
bounds the ordinal cost by the weighted binary error,
:math:`C(y, r(x)) \le \sum_k W_{y,k}\,[g(x, k) \ne Y_k]`, for any g when the rows of C are
convex, and for rank-monotone g (answers non-increasing in k) otherwise.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.validation import has_fit_parameter

from ordrank.algorithms._ordinal import OrdinalEstimator

COSTS = ("absolute", "classification")


def cost_matrix(cost, n_ranks: int) -> np.ndarray:
    """The K×K cost matrix C(y, r) (row = true rank) of ``cost``; a user matrix must be V-shaped."""
    if isinstance(cost, str):
        r = np.arange(n_ranks)
        if cost == "absolute":
            return np.abs(r[:, None] - r[None, :]).astype(np.float64)
        if cost == "classification":
            return (r[:, None] != r[None, :]).astype(np.float64)
        raise ValueError(f"unknown cost {cost!r}: use one of {COSTS} or a K×K array")
    C = np.array(cost, dtype=np.float64)
    if C.shape != (n_ranks, n_ranks):
        raise ValueError(f"cost matrix has shape {C.shape}; the {n_ranks} ranks need "
                         f"({n_ranks}, {n_ranks})")
    for y, row in enumerate(C):
        if not (np.all(np.isfinite(row)) and row[y] == 0 and np.all(np.diff(row[: y + 1]) <= 0)
                and np.all(np.diff(row[y:]) >= 0)):
            raise ValueError(
                f"cost row {y + 1} (true rank {y + 1}) is not V-shaped: {row.tolist()}; need "
                "C(y, y) = 0, non-increasing up to the diagonal and non-decreasing after it")
    return C


def extended_examples(ranks: np.ndarray, C: np.ndarray):
    """The extended examples of ranks 1..K under cost C, in k-major order, weight-0 ones dropped.

    Returns ``(rows, k, labels, weights)``: example ``rows[j]`` asked about rank ``k[j]`` (1..K−1),
    label +1 if its rank > k else −1, weight |C(y, k) − C(y, k+1)|.
    """
    ranks = np.asarray(ranks)
    W = np.abs(np.diff(C, axis=1))[ranks - 1]  # (n, K−1)
    k0, rows = np.nonzero(W.T > 0)
    return rows, k0 + 1, np.where(ranks[rows] > k0 + 1, 1, -1), W[rows, k0]


class OrdinalReduction(OrdinalEstimator):
    r"""Ordinal regression reduced to one binary classifier on extended examples (Li & Lin, 2006).

    Each training example (x, y) gives, for k = 1..K−1, the extended example ((x, k), +1 if y > k
    else −1) with weight :math:`|C(y, k) - C(y, k+1)|`; examples of weight 0 are dropped (for the
    absolute cost every weight is 1; for the classification cost only k = y−1 and k = y remain).
    ``estimator`` (cloned) is fitted on them with ``sample_weight`` (omitted when all weights are
    equal; a learner without ``sample_weight`` then still works). The rank is

    .. math:: r(x) = 1 + \sum_{k=1}^{K-1} [g(x, k) > 0],

    with g the learner's ``decision_function`` when it has one, else ``predict(...) == +1``.

    The extended input (x, k) is x followed by an encoding of k: ``"onehot"`` appends the
    (K−1)-vector e_k, so a learner linear in the appended block sees the paper's extended kernel
    K(x, x') + [k = k'] (g(x, k) = f(x) + b_k: a threshold model); ``"integer"`` appends k as one
    ordered column, so a tree or stump tests "k ≤ j" in a single split.

    Rank monotonicity (g(x, k) non-increasing in k) is not enforced and nothing is repaired: the
    counting rule above is the paper's and is well-defined for any answers. The cost bound
    :math:`C(y, r(x)) \le \sum_k W_{y,k} [g(x,k) \ne Y_k]` holds for any g when the cost rows are
    convex (e.g. absolute cost); for a V-shaped but non-convex cost (e.g. classification cost) it
    needs rank-monotone answers. :meth:`extended_decision` shows the K−1 answers to check.

    Parameters
    ----------
    estimator : binary classifier, default=None
        Any scikit-learn binary classifier; None means ``LogisticRegression()``.
    cost : {"absolute", "classification"} or array-like of shape (K, K), default="absolute"
        C(y, r) = |y − r|, [y ≠ r], or a V-shaped matrix (row = true rank, column = prediction).
    encoding : {"onehot", "integer"}, default="onehot"
        How k is appended to x.

    Attributes
    ----------
    estimator_ : classifier
        The fitted binary learner.
    n_extended_ : int
        Number of extended examples used (those of non-zero weight).
    classes_ : ndarray of shape (n_classes,)
        The labels in rank order.

    References
    ----------
    L. Li and H.-T. Lin, "Ordinal regression by extended binary classification", NIPS 2006.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "cost": [StrOptions(set(COSTS)), "array-like"],
        "encoding": [StrOptions({"onehot", "integer"})],
    }

    def __init__(self, estimator=None, *, cost="absolute", encoding="onehot"):
        self.estimator = estimator
        self.cost = cost
        self.encoding = encoding

    def fit(self, X, y):
        """Build the extended weighted binary examples and fit the binary learner on them."""
        self._validate_params()
        X, ranks = self._fit_data(X, y)  # classes_ in rank order (see _ordinal)
        rows, k, labels, weights = extended_examples(ranks, cost_matrix(self.cost, self.n_ranks_))
        self.n_extended_ = len(rows)
        self._fit_extended(X, rows, k, labels, weights)
        return self

    def _extend(self, X, k):
        if self.encoding == "integer":
            return np.hstack([X, k[:, None].astype(np.float64)])
        E = np.zeros((len(k), self.n_ranks_ - 1))
        E[np.arange(len(k)), k - 1] = 1.0
        return np.hstack([X, E])

    def _fit_extended(self, X, rows, k, labels, weights):
        est = clone(LogisticRegression() if self.estimator is None else self.estimator)
        Z = self._extend(X[rows], k)
        if np.all(weights == weights[0]):
            est.fit(Z, labels)
        elif has_fit_parameter(est, "sample_weight"):
            est.fit(Z, labels, sample_weight=weights)
        else:
            raise ValueError(f"{type(est).__name__} does not accept sample_weight, which the cost "
                             f"{self.cost!r} needs (its extended examples have unequal weights)")
        self.estimator_ = est

    def extended_decision(self, X) -> np.ndarray:
        """The K−1 binary answers g(x, k) > 0 as an (n, K−1) boolean array (row = x, column = k)."""
        return self._extended_decision(self._checked(X))

    def _questions(self, X):
        """The extended inputs (x, k) of every row for k = 1..K−1, k-major: (n·(K−1), d')."""
        n, K1 = X.shape[0], self.n_ranks_ - 1
        return self._extend(np.tile(X, (K1, 1)), np.repeat(np.arange(1, K1 + 1), n))

    def _extended_decision(self, X):
        Z, est = self._questions(X), self.estimator_
        if hasattr(est, "decision_function"):
            yes = est.decision_function(Z) > 0
        else:
            yes = est.predict(Z) == 1
        return yes.reshape(self.n_ranks_ - 1, X.shape[0]).T

    def decision_function(self, X) -> np.ndarray:
        r"""A latent real score per row, :math:`s(x) = \sum_{k=1}^{K-1} g(x, k)` (for ranking).

        g is the binary learner's ``decision_function``; for a learner without one, its
        ``predict_proba`` as :math:`2P(+1 \mid (x, k)) - 1` (e.g. a decision tree), else its ±1
        answers. With the one-hot encoding and a learner linear in it, g(x, k) = f(x) + b_k and
        s(x) = (K−1) f(x) + Σ_k b_k orders rows as the paper's latent f; in general s is the rank
        count :math:`\sum_k [g(x, k) > 0]` refined by the answers' confidence. Shape (n_samples,).
        """
        return self._extended_scores(self._checked(X)).sum(axis=1)

    def _extended_scores(self, X):
        """The real answers g(x, k) as an (n, K−1) array (see :meth:`decision_function`)."""
        Z, est = self._questions(X), self.estimator_
        if hasattr(est, "decision_function"):
            g = est.decision_function(Z)
        elif hasattr(est, "predict_proba"):
            g = 2.0 * est.predict_proba(Z)[:, list(est.classes_).index(1)] - 1.0
        else:
            g = np.where(est.predict(Z) == 1, 1.0, -1.0)
        return np.asarray(g, dtype=np.float64).reshape(self.n_ranks_ - 1, X.shape[0]).T

    def _predict_ranks(self, X):
        return 1 + self._extended_decision(X).sum(axis=1)

    @property
    def staged_param(self):
        """The parameter whose smaller values :meth:`staged_predict` answers without refitting
        (``"estimator__n_estimators"`` for a learner with ``staged_decision_function``, e.g.
        AdaBoost), else None. Model selection (:mod:`ordrank.protocols.partitions`) reads it."""
        return "estimator__n_estimators" if hasattr(self.estimator, "staged_decision_function") else None

    def staged_predict(self, X):
        """The predictions after each round of a boosted learner: the t-th equals ``predict`` of
        the same reduction fitted with t rounds, since an ensemble's first t rounds do not depend on
        how many follow (scikit-learn's AdaBoost draws its seeds in round order) and only the
        answers' signs count (the staged answers differ from the final ones by a positive factor)."""
        Z, K1 = self._questions(self._checked(X)), self.n_ranks_ - 1
        for g in self.estimator_.staged_decision_function(Z):
            yes = np.asarray(g).reshape(K1, -1) > 0
            yield self.classes_[yes.sum(axis=0)]


def reduction_tree(*, min_samples_leaf=1, max_depth=None, cost="absolute", encoding="integer",
                   random_state=None) -> OrdinalReduction:
    """Reduction-C4.5 stand-in: an entropy-split decision tree on the extended examples."""
    tree = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=min_samples_leaf,
                                  max_depth=max_depth, random_state=random_state)
    return OrdinalReduction(tree, cost=cost, encoding=encoding)


def reduction_boost(*, n_estimators=50, cost="absolute", encoding="integer",
                    random_state=None) -> OrdinalReduction:
    """Reduction-AdaBoost with decision stumps on the extended examples."""
    boost = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=n_estimators,
                               random_state=random_state)
    return OrdinalReduction(boost, cost=cost, encoding=encoding)
