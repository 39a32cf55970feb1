r"""RankNet's probabilistic pair cost in closed form (Burges et al., ICML 2005, Section 3, Figure 1).

A model's scores :math:`o_i = f(x_i)` give each pair the difference :math:`o_{ij} = o_i - o_j` and
the modelled probability that :math:`x_i` is ranked above :math:`x_j`

.. math:: P_{ij} = \frac{e^{o_{ij}}}{1 + e^{o_{ij}}} = \sigma(o_{ij}),
   \qquad \frac{P_{ij}}{1 - P_{ij}} = e^{o_{ij}}, \qquad o_{ij} = \operatorname{logit} P_{ij}.

**The cost** (:func:`pair_cost`) is the cross entropy between a target :math:`\bar P_{ij}` and
:math:`P_{ij}`. With :math:`\log P_{ij} = o_{ij} - \log(1 + e^{o_{ij}})` and
:math:`\log(1 - P_{ij}) = -\log(1 + e^{o_{ij}})`,

.. math:: C(o_{ij}) = -\bar P_{ij} \log P_{ij} - (1 - \bar P_{ij}) \log(1 - P_{ij})
                    = -\bar P_{ij}\, o_{ij} + \log(1 + e^{o_{ij}}).

Its derivative is :math:`\sigma(o_{ij}) - \bar P_{ij}` and its second derivative
:math:`P_{ij}(1 - P_{ij}) > 0`: convex, with slopes :math:`-\bar P` as :math:`o \to -\infty` and
:math:`1 - \bar P` as :math:`o \to +\infty` (asymptotically linear), minimal at
:math:`o = \operatorname{logit} \bar P` for :math:`0 < \bar P < 1`, where it equals the entropy
:math:`-\bar P \log \bar P - (1 - \bar P) \log(1 - \bar P)`. For :math:`\bar P = 1` it is
:math:`\log(1 + e^{-o})`, for :math:`\bar P = 0` it is :math:`\log(1 + e^{o})` (no minimum: it
decreases towards 0 forever), and for :math:`\bar P = \tfrac12` it is
:math:`\log(2\cosh(o/2))`, symmetric with minimum :math:`\log 2` at 0.

**Combining probabilities** (:func:`combined_probability`). Since
:math:`o_{ik} = o_i - o_k = (o_i - o_j) + (o_j - o_k) = o_{ij} + o_{jk}`, the odds multiply,
:math:`\frac{P_{ik}}{1 - P_{ik}} = \frac{P_{ij}}{1 - P_{ij}} \cdot \frac{P_{jk}}{1 - P_{jk}}`, and
solving for :math:`P_{ik}`,

.. math:: P_{ik} = \frac{P_{ij} P_{jk}}{P_{ij} P_{jk} + (1 - P_{ij})(1 - P_{jk})}
                 = \frac{P_{ij} P_{jk}}{1 + 2 P_{ij} P_{jk} - P_{ij} - P_{jk}}.

With :math:`P_{ij} = P_{jk} = P` (Figure 1, right; :func:`equal_combined_probability`),
:math:`P_{ik} = P^2 / (P^2 + (1 - P)^2) = P^2 / (1 + 2P^2 - 2P)`, and

.. math:: P_{ik} - P = \frac{P (1 - P) (2P - 1)}{1 + 2P^2 - 2P},

so :math:`P_{ik} = P` at :math:`P \in \{0, \tfrac12, 1\}` (certainty and complete uncertainty
propagate), :math:`P_{ik} > P` for :math:`\tfrac12 < P < 1` and :math:`P_{ik} < P` for
:math:`0 < P < \tfrac12`: targets on pairs are not free; the model forces this consistency.
The denominator :math:`P^2 + (1 - P)^2 \geq \tfrac12` never vanishes; in the general formula it
vanishes only when one probability is 0 and the other 1 (:math:`o_{ik} = -\infty + \infty`), which
:func:`combined_probability` refuses.

**Adjacency posteriors** (the paper's theorem; :func:`pairwise_from_adjacent`): targets for the
m − 1 adjacent pairs of a chain fix every pairwise target, since scores
:math:`o_1 = 0, \; o_{t+1} = o_t - \operatorname{logit} \bar P_{t,t+1}` reproduce them and every
:math:`o_{ij}` is a sum of adjacent differences.

:func:`figure1_table` is the tidy table Figure 1 is drawn from (``experiments/ranknet_figure1.py``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit, logit

FIGURE1_TARGETS = (0.0, 0.5, 1.0)  # P̄ of the three cost curves, as in the paper
FIGURE1_O_RANGE = (-5.0, 5.0)      # the cost panel's horizontal axis


def _array(values, name: str, low=None, high=None, open_interval=False) -> np.ndarray:
    """``values`` as a float array: finite, and within [low, high] (or (low, high)) when given."""
    array = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(array)
    if low is not None:
        bad |= (array <= low) if open_interval else (array < low)
    if high is not None:
        bad |= (array >= high) if open_interval else (array > high)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f" at index {index if array.ndim > 1 else index[0]}" if array.ndim else ""
        interval = "" if low is None else (f" in ({low:g}, {high:g})" if open_interval
                                           else f" in [{low:g}, {high:g}]")
        raise ValueError(f"{name} must be finite{interval}; got {array[index] if array.ndim else array}"
                         f"{where}")
    return array


def pair_probability(o):
    """P_ij = e^o / (1 + e^o) = σ(o) for score differences ``o`` = o_i − o_j."""
    return expit(_array(o, "o"))


def pair_cost(o, target):
    """RankNet's cost C(o) = −P̄ o + log(1 + e^o); broadcasts.

    ``o`` the score differences o_ij (finite), ``target`` the target probabilities P̄_ij in [0, 1].
    Computed as (1 − P̄) o + log(1 + e^{−o}) for o > 0 and −P̄ o + log(1 + e^{o}) otherwise: a sum of
    non-negative terms, so accurate to a few ulps also where the cost is tiny (P̄ = 1, o large),
    where −P̄ o + log(1 + e^o) would cancel, and without overflow.
    """
    o, target = _array(o, "o"), _array(target, "target", 0.0, 1.0)
    return np.where(o > 0, (1.0 - target) * o, -target * o) + np.log1p(np.exp(-np.abs(o)))


def combined_probability(p_ij, p_jk):
    """P_ik from P_ij and P_jk (o_ik = o_ij + o_jk): P_ij P_jk / (1 + 2 P_ij P_jk − P_ij − P_jk).

    Both in [0, 1], broadcast; a pair with one probability 0 and the other 1 has no combination
    (o_ik = −∞ + ∞) and raises.
    """
    p_ij, p_jk = _array(p_ij, "p_ij", 0.0, 1.0), _array(p_jk, "p_jk", 0.0, 1.0)
    numerator = p_ij * p_jk
    denominator = numerator + (1.0 - p_ij) * (1.0 - p_jk)
    undefined = denominator == 0.0
    if undefined.any():
        index = tuple(int(i) for i in np.argwhere(np.broadcast_to(undefined, numerator.shape))[0])
        a, b = np.broadcast_to(p_ij, numerator.shape)[index], np.broadcast_to(p_jk, numerator.shape)[index]
        raise ValueError(f"combined_probability: p_ij = {a:g} and p_jk = {b:g} (at index {index}) "
                         "have no combination: o_ik = o_ij + o_jk would be −∞ + ∞")
    return numerator / denominator


def equal_combined_probability(p):
    """P_ik = P² / (1 + 2P² − 2P) when P_ij = P_jk = P in [0, 1] (Figure 1, right)."""
    p = _array(p, "p", 0.0, 1.0)
    return p**2 / (1.0 + 2.0 * p**2 - 2.0 * p)


def pairwise_from_adjacent(p_adjacent) -> np.ndarray:
    """Every pairwise target of a chain x_1, ..., x_m fixed by its m − 1 adjacent targets.

    ``p_adjacent[t]`` is P̄ that x_{t+1} ranks above x_{t+2} (0-based: item t above item t + 1),
    each in the open interval (0, 1) (0 or 1 is an infinite score gap, which would leave some pairs
    undefined). Returns the (m, m) matrix P with P[i, j] = σ(o_i − o_j) for the scores
    o_0 = 0, o_{t+1} = o_t − logit p_adjacent[t]; its diagonal is ½ and P + Pᵀ = 1.
    """
    p = _array(p_adjacent, "p_adjacent", 0.0, 1.0, open_interval=True)
    if p.ndim != 1:
        raise ValueError(f"p_adjacent must be one-dimensional (the chain's m − 1 adjacent pairs); "
                         f"got shape {p.shape}")
    scores = -np.concatenate([[0.0], np.cumsum(logit(p))])
    return expit(scores[:, None] - scores[None, :])


def figure1_table(n_o: int = 201, n_p: int = 201, targets=FIGURE1_TARGETS) -> pd.DataFrame:
    """The tidy table of Figure 1: columns ``panel``, ``pbar``, ``x``, ``value``.

    * ``panel == "cost"``: one curve per target ``pbar`` (P̄ = 0, 0.5, 1), ``x`` = o_ij on ``n_o``
      evenly spaced points of [−5, 5], ``value`` = C(o_ij) (:func:`pair_cost`);
    * ``panel == "combined"``: ``x`` = P = P̄_ij = P̄_jk on ``n_p`` evenly spaced points of [0, 1],
      ``value`` = P̄_ik (:func:`equal_combined_probability`); ``pbar`` is NaN there (P is the
      abscissa, not a curve's parameter).

    Rows in that order (cost curves by increasing P̄, then the combined curve), x increasing.
    """
    for name, n in (("n_o", n_o), ("n_p", n_p)):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
            raise ValueError(f"{name} must be an integer >= 2 (points on the axis), got {n!r}")
    targets = _array(targets, "targets", 0.0, 1.0)
    o = np.linspace(*FIGURE1_O_RANGE, n_o)
    p = np.linspace(0.0, 1.0, n_p)
    cost = pd.DataFrame({"panel": "cost", "pbar": np.repeat(targets, n_o), "x": np.tile(o, targets.size),
                         "value": pair_cost(o[None, :], targets[:, None]).ravel()})
    combined = pd.DataFrame({"panel": "combined", "pbar": np.nan, "x": p,
                             "value": equal_combined_probability(p)})
    return pd.concat([cost, combined], ignore_index=True).astype(
        {"panel": str, "pbar": np.float64, "x": np.float64, "value": np.float64})
