r"""RankBoost (Freund, Iyer, Schapire & Singer, "An efficient boosting algorithm for combining
preferences", JMLR 4, 2003) with threshold weak rankers (its ordinal use with fitted cut points:
:mod:`~ordrank.algorithms.ranking.rankboost_ordinal`).

The pair distribution is never stored pair by pair. For layered feedback (the grades of a query),
:math:`D_t(x_0, x_1) = c_q \exp(H_{t-1}(x_0) - H_{t-1}(x_1)) / Z` — a product of one factor of
:math:`x_0` and one of :math:`x_1` (the paper's Section 3.2 factorisation, for every pair of grade
levels of a query at once), so the potential
:math:`\pi(x) = \sum_{x_0} D(x_0, x) - \sum_{x_1} D(x, x_1)` (Section 4.2) of every document comes
from per-(query, grade) sums in O(n), and :math:`r(h) = \sum_x h(x)\,\pi(x)` of every candidate
threshold from one binned sum: a round costs O(n·d + queries × grades), never O(pairs).
"""
from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy.special import logsumexp
from sklearn.utils._param_validation import Interval, StrOptions

from ordrank.algorithms.ranking._base import RankingEstimator
from ordrank.compiled import njit
from ordrank.queries import query_index, query_offsets

PERFECT = 1e-12  # |r| within this of 1: the weak ranker orders every pair (α would be infinite)
USELESS = 1e-12  # |r| below this: no weak ranker separates any weighted pair; boosting stops
MAX_LOSS_LEVELS = 64  # the per-round training loss costs O(n × grade levels): recorded up to this
MAX_LOSS_ROWS = 200_000  # ... and a sort of the rows a round (most of a round's time at web scale)


class PairWeights:
    """The preference pairs of ``(y, qid)`` and their distribution D in factored form.

    A pair (x0, x1) is two documents of one query with y(x0) < y(x1). ``normalize="pairs"``: D_1
    uniform over all pairs; ``"query"``: each query with a pair weighs 1/(number of such queries),
    uniform over its own pairs. For scores H, D(x0, x1) ∝ c_q exp(H(x0) − H(x1)).
    """

    def __init__(self, y, qid, normalize="pairs"):
        qidx = query_index(qid)
        self.levels = np.unique(y, return_inverse=True)[1].ravel()
        self.order = np.lexsort((self.levels, qidx))  # rows by (query, grade)
        q, lev = qidx[self.order], self.levels[self.order]
        new = np.r_[True, (q[1:] != q[:-1]) | (lev[1:] != lev[:-1])]
        self.starts = np.flatnonzero(new)  # (query, grade) groups, contiguous in that order
        self.group = np.cumsum(new) - 1
        gq = q[self.starts]
        first = np.flatnonzero(np.r_[True, gq[1:] != gq[:-1]])
        position = np.arange(len(gq)) - first[gq]  # the grade's place within its query, 0..
        self.shape = (int(qidx.max(initial=-1)) + 1, int(position.max(initial=-1)) + 1)
        self.cell = gq * self.shape[1] + position
        size = np.diff(np.r_[self.starts, len(q)]).astype(np.float64)
        n_q = np.bincount(gq, weights=size, minlength=self.shape[0])
        self.pairs = (n_q ** 2 - np.bincount(gq, weights=size ** 2, minlength=self.shape[0])) / 2
        if normalize == "pairs":
            c = np.where(self.pairs > 0, 1 / max(self.pairs.sum(), 1), 0.0)
        else:
            c = np.where(self.pairs > 0, 1 / (np.count_nonzero(self.pairs) * np.maximum(self.pairs, 1)), 0)
        self.c = c  # D_1 of each pair of query q
        with np.errstate(divide="ignore"):
            self.log_c = np.log(c)[q]  # per sorted row
        self.qidx, self.offsets = qidx, query_offsets(qid)

    def _cell_lse(self, v):
        """log Σ exp(v) over each (query, grade) cell, as a (queries × grades) table (−inf: empty)."""
        top = np.maximum.reduceat(v, self.starts)
        sums = np.add.reduceat(np.exp(v - top[self.group]), self.starts)
        table = np.full(self.shape, -np.inf)
        table.flat[self.cell] = top + np.log(sums)
        return table

    def potential(self, H):
        """π(x) for every row (row order) under D ∝ c_q exp(H(x0) − H(x1)), and log of the
        normaliser Σ_pairs c_q exp(H(x0) − H(x1)) (= log ∏_t Z_t when H is the boosted score).

        Computed in the log domain: exact for any range of H, no overflow."""
        h = H[self.order]
        up, down = self._cell_lse(h), self._cell_lse(-h)
        edge = np.full((self.shape[0], 1), -np.inf)
        below = np.hstack([edge, np.logaddexp.accumulate(up, axis=1)[:, :-1]])
        above = np.hstack([np.logaddexp.accumulate(down[:, ::-1], axis=1)[:, -2::-1], edge])
        cell = self.cell[self.group]
        preferred = self.log_c + below.flat[cell] - h  # log Σ_{x0} D(x0, x) (unnormalised)
        other = self.log_c + above.flat[cell] + h  # log Σ_{x1} D(x, x1)
        log_total = logsumexp(preferred)
        pi = np.empty_like(h)
        pi[self.order] = np.exp(preferred - log_total) - np.exp(other - log_total)
        return pi, float(log_total)

    def ranking_loss(self, H):
        """Σ D_1(x0, x1) [H(x1) ≤ H(x0)] (the paper's rloss; ties count as errors), in O(n × grades)."""
        order = np.lexsort((self.levels, -H, self.qidx))
        lev, start = self.levels[order], self.offsets[self.qidx[order]]
        count = np.zeros(len(H))
        for level in range(int(lev.max(initial=0))):
            seen = np.r_[0, np.cumsum(lev == level)]  # rows of this grade strictly before each row
            count += (lev > level) * (seen[:-1] - seen[start])
        return float(np.sum(self.c[self.qidx[order]] * count))


def candidate_thresholds(X, n_thresholds=None) -> list[np.ndarray]:
    """Per feature, the sorted candidate thresholds θ of the weak rankers [x_f > θ]: every distinct
    training value but the largest (``None``), or the distinct values among the ``n_thresholds``
    quantiles at levels i/(n_thresholds + 1) (observed values, "inverted_cdf"), the largest dropped."""
    out = []
    for j in range(X.shape[1]):  # a column at a time (no float64 copy of a float32 X)
        column = np.asarray(X[:, j], dtype=np.float64)
        values = np.unique(column)
        if n_thresholds is not None and len(values) > n_thresholds + 1:
            levels = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
            values = np.unique(np.quantile(column, levels, method="inverted_cdf"))
        out.append(values[values < column.max()] if len(column) else values)
    return out


class RankBoost(RankingEstimator):
    r"""RankBoost with {0, 1} threshold weak rankers on one feature, the pair weights factored.

    Preference pairs (x0, x1), x1 preferred: two documents of one query with y(x0) < y(x1) (without
    ``qid``, every pair of rows with different labels — the ordinal use). Round t, with D_1 uniform
    over the pairs (``normalize="pairs"``) or over each query's pairs, each query weighing the same
    (``"query"``):

    .. math:: r(h) = \sum_{(x_0, x_1)} D_t(x_0, x_1)\,(h(x_1) - h(x_0)), \qquad
              h_t = \arg\max_h |r(h)|, \qquad
              \alpha_t = \tfrac12 \ln\frac{1 + r_t}{1 - r_t},

    .. math:: D_{t+1}(x_0, x_1) = D_t(x_0, x_1)\, e^{\alpha_t (h_t(x_0) - h_t(x_1))} / Z_t,
              \qquad H(x) = \sum_t \alpha_t h_t(x).

    The weak rankers are :math:`h(x) = [x_f > \theta]` over every feature f and candidate θ
    (:func:`candidate_thresholds`); a negative α_t reverses one. The paper's default value
    :math:`q_{def}` for a missing feature is not needed: inputs are validated finite, there are no
    missing values. α_t is the paper's choice for {0, 1} weak rankers (it minimises the bound
    :math:`Z_t \le \frac{1 - r}{2} e^{\alpha} + \frac{1 + r}{2} e^{-\alpha}`, giving
    :math:`Z_t \le \sqrt{1 - r_t^2}`), and Theorem 1 bounds the training ranking loss by
    :math:`\prod_t Z_t = \sum D_1(x_0, x_1) e^{H(x_0) - H(x_1)}`. (The exact minimiser of Z_t for
    {0, 1} rankers, ½ ln(W₊/W₋) with W± the weight of the pairs h orders right/wrong, is not used.)
    D is kept factored (:class:`PairWeights`; the module docstring): a round costs O(n·d) for r, plus
    O(n log n + n × grades) for the recorded training loss, never O(pairs). Ties among weak rankers
    (up to rounding) go to the first feature, then the lowest θ.

    Boosting stops early (``n_iter_ < n_estimators``) when no weak ranker separates a weighted pair
    (|r| < 1e-12), or after a perfect one (|r| ≥ 1 − 1e-12: it orders every pair, α would be
    infinite), which is kept with :math:`\alpha_t = \pm(1 + \sum_{s<t} |\alpha_s|)`, so it decides every
    pair it separates.

    Parameters
    ----------
    n_estimators : int, default=100
        Boosting rounds T.
    n_thresholds : int or None, default=None
        Candidate thresholds per feature: None, every distinct training value (as the paper's weak
        learner); an int, that many quantiles (fewer when values repeat), a faster round.
    normalize : {"pairs", "query"}, default="pairs"
        D_1 uniform over all preference pairs, or per query (each query with a pair weighs the same).

    Attributes
    ----------
    estimators_ : list of (int, float)
        The weak rankers (feature, θ), h(x) = [x_feature > θ], in order.
    alphas_ : ndarray of shape (n_iter_,)
    n_iter_ : int
        Rounds done.
    loss_bound_ : ndarray of shape (n_iter_,)
        :math:`\prod_{s \le t} Z_s` after each round (= the exponential pair loss under D_1).
    train_loss_ : ndarray of shape (n_iter_,) or None
        The training ranking loss :math:`\sum D_1(x_0, x_1) [H(x_1) \le H(x_0)]` after each round
        (None when y has more than 64 distinct values or there are more than 200,000 rows: it costs
        O(n × grades) and a sort of the rows a round).
    n_features_in_ : int
    """

    _dtypes = [np.float64, np.float32]  # a float32 X is kept: thresholds are its values, compared exactly

    _parameter_constraints: dict = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "n_thresholds": [Interval(Integral, 1, None, closed="left"), None],
        "normalize": [StrOptions({"pairs", "query"})],
    }

    def __init__(self, n_estimators=100, n_thresholds=None, normalize="pairs"):
        self.n_estimators = n_estimators
        self.n_thresholds = n_thresholds
        self.normalize = normalize

    def fit(self, X, y, qid=None):
        """Boost on the preference pairs of ``(y, qid)``; ``qid=None``: all pairs with different y."""
        self._validate_params()
        X, y, qid = self._validate_queries(X, y, qid)
        weights = PairWeights(y, qid, self.normalize)
        if not weights.pairs.sum():
            raise ValueError(f"{type(self).__name__}: y gives no preference pair, nothing to rank: "
                             f"every query's documents have one relevance ({len(y)} sample"
                             f"{'s' * (len(y) != 1)}, {weights.shape[0]} queries)")
        thresholds = candidate_thresholds(X, self.n_thresholds)
        codes, offset, first, last = _binned(X, thresholds)
        n_bins = int(last[-1]) + 1 if len(last) else 0
        start = _starts(thresholds)
        track = weights.levels.max(initial=0) < MAX_LOSS_LEVELS and len(y) <= MAX_LOSS_ROWS
        H = np.zeros(len(y))
        pi = weights.potential(H)[0]
        self.estimators_, alphas, bound, loss = [], [], [], []
        for _ in range(self.n_estimators if len(first) else 0):
            sums = np.cumsum(_bin_sums(codes, offset, pi, n_bins))
            r = sums[last] - sums[first]  # Σ_{x: x_f > θ} π(x) for every candidate (f, θ)
            best = int(np.argmax(np.abs(r)))
            if abs(r[best]) < USELESS:
                break
            feature = int(np.searchsorted(start, best, side="right") - 1)
            theta = float(thresholds[feature][best - start[feature]])
            perfect = abs(r[best]) >= 1 - PERFECT
            if perfect:
                alpha = np.sign(r[best]) * (1 + np.sum(np.abs(alphas)))
            else:
                alpha = 0.5 * np.log((1 + r[best]) / (1 - r[best]))
            H += alpha * (X[:, feature] > theta)
            self.estimators_.append((feature, theta))
            alphas.append(float(alpha))
            pi, log_total = weights.potential(H)
            bound.append(np.exp(log_total))
            if track:
                loss.append(weights.ranking_loss(H))
            if perfect:
                break
        self.alphas_ = np.asarray(alphas, dtype=np.float64)
        self.n_iter_ = len(alphas)
        self.loss_bound_ = np.asarray(bound, dtype=np.float64)
        self.train_loss_ = np.asarray(loss, dtype=np.float64) if track else None
        return self

    def _scores(self, X):
        score = np.zeros(len(X))
        if not self.n_iter_:
            return score
        features = np.array([f for f, _ in self.estimators_])
        thetas = np.array([t for _, t in self.estimators_])
        for f in np.unique(features):  # Σ_t α_t [x_f > θ_t] = running sum of α over θ_t < x_f
            mine = np.flatnonzero(features == f)
            order = mine[np.argsort(thetas[mine], kind="stable")]
            running = np.r_[0.0, np.cumsum(self.alphas_[order])]
            score += running[np.searchsorted(thetas[order], X[:, f], side="left")]
        return score


def _starts(thresholds):
    return np.r_[0, np.cumsum([len(t) for t in thresholds])]


def _binned(X, thresholds):
    """Each value's bin within its feature (the number of candidate θ below it) as an (n, d) array of the
    smallest unsigned type that holds them (one byte per value with at most 255 thresholds a feature);
    each feature's offset into the bins of all features; and per candidate (f, θ_j) the cumulative-sum
    positions of bin j and of the last bin of f. Then Σ_{x_f > θ_j} π = cs[last] − cs[first] with cs the
    running sum of the per-bin sums of π (:func:`_bin_sums`)."""
    sizes = np.array([len(t) + 1 for t in thresholds], dtype=np.int64)
    offset = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
    widest = int(sizes.max(initial=1))
    dtype = np.uint8 if widest <= 1 << 8 else np.uint16 if widest <= 1 << 16 else np.uint32
    codes = np.empty((len(X), len(thresholds)), dtype=dtype)
    for f, t in enumerate(thresholds):
        codes[:, f] = np.searchsorted(t, X[:, f], side="left")
    first = np.concatenate([offset[f] + np.arange(len(t)) for f, t in enumerate(thresholds)] or [[]])
    last = np.concatenate([np.full(len(t), offset[f] + len(t)) for f, t in enumerate(thresholds)] or [[]])
    return codes, offset, first.astype(np.int64), last.astype(np.int64)


@njit
def _bin_sums(codes, offset, pi, n_bins):
    """Σ π(x) over the rows in each bin (feature f's bin b is ``offset[f] + b``):
    ``np.bincount((codes + offset).ravel(), np.repeat(pi, d))`` without the n × d weights or codes,
    adding in the same (row-major) order, so the same sums bit for bit."""
    sums = np.zeros(n_bins)
    for i in range(codes.shape[0]):
        for f in range(codes.shape[1]):
            sums[offset[f] + codes[i, f]] += pi[i]
    return sums
