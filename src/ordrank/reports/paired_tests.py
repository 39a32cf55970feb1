"""Paired comparisons of two learners over benchmark partitions: exact signs, Holm's correction, and
the tests over benchmarks (data sets). Pure functions of arrays; :mod:`ordrank.reports` applies them to
the tidy results table.

The errors of the benchmarks (MAE, zero-one error) are k / n_test: two different errors on the same
test part differ by at least 1/n_test (≥ 4e-5 here), and a mean over 20 partitions of such differences
by at least 1/(20 n_test), whereas a floating-point sum of equal errors can leave ~1e-17. Differences
within ``TOLERANCE`` (relative to the errors' size) are therefore exact zeros, not "better" or "worse".
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

TOLERANCE = 1e-12


def exact_differences(x, reference) -> np.ndarray:
    """d_i = x_i − reference_i, with the float noise of equal values set to an exact 0.

    |d_i| ≤ TOLERANCE · max(1, |x_i|, |reference_i|) counts as equal (0); other d_i are kept as they are.
    """
    x, reference = np.asarray(x, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    d = x - reference
    scale = np.maximum(1.0, np.maximum(np.abs(x), np.abs(reference)))
    return np.where(np.abs(d) <= TOLERANCE * scale, 0.0, d)


def mean_and_sign(d, scale: float = 1.0) -> tuple[float, str]:
    """The mean of the differences (an exactly rounded sum, ``math.fsum``) and its sign.

    "better" (mean < 0: lower error), "worse" (> 0), "tie" when |Σd| ≤ TOLERANCE · n · max(1, scale)
    (e.g. +0.1 and −0.1, whose float sum is ~1e-17), "n/a" without differences.
    """
    d = np.asarray(d, dtype=np.float64)
    if len(d) == 0:
        return float("nan"), "n/a"
    total = math.fsum(d)
    if abs(total) <= TOLERANCE * len(d) * max(1.0, scale):
        return 0.0, "tie"
    return total / len(d), "better" if total < 0 else "worse"


def wilcoxon_pvalue(d) -> float:
    """Two-sided Wilcoxon signed-rank p-value of the differences (zeros dropped, scipy's default);
    1 when every difference is 0, NaN without differences."""
    d = np.asarray(d, dtype=np.float64)
    if len(d) == 0:
        return float("nan")
    if not np.any(d):
        return 1.0
    return float(stats.wilcoxon(d).pvalue)


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (statsmodels' ``multipletests(method="holm")``); NaN stays
    NaN and is not counted in the family.

    With the m p-values sorted, p_(1) ≤ … ≤ p_(m): p̃_(i) = min(1, max_{j ≤ i} (m − j + 1) p_(j)).
    Rejecting where p̃ < α controls the family-wise error rate at α. Computed here by that formula
    (tests check it against statsmodels): ``multipletests`` runs ``gc.collect()`` on every call,
    0.15 s each in a report process, which made the benchmark report take 20 s for 130 families.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    present = np.flatnonzero(~np.isnan(p))
    if len(present):
        order = present[np.argsort(p[present], kind="stable")]
        m = len(order)
        adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
        out[order] = np.minimum(adjusted, 1.0)
    return out


def over_benchmarks(mean_differences, signs) -> dict:
    """The tests over benchmarks (data sets) of one algorithm against the reference.

    ``signs`` ("better"/"worse"/"tie" per benchmark, from :func:`mean_and_sign`) give the counts and
    the two-sided sign test (binomial, p = 1/2, ties dropped); the per-benchmark mean differences go
    to the Wilcoxon signed-rank test (exact zeros dropped).
    """
    signs = list(signs)
    better, worse = signs.count("better"), signs.count("worse")
    d = np.asarray([m if s != "tie" else 0.0 for m, s in zip(mean_differences, signs) if s != "n/a"])
    sign_p = float(stats.binomtest(better, better + worse, 0.5).pvalue) if better + worse else float("nan")
    return {"benchmarks": len(d), "better": better, "worse": worse, "tie": signs.count("tie"),
            "sign_pvalue": sign_p, "wilcoxon_pvalue": wilcoxon_pvalue(d)}


# --- Rank statistics over benchmarks (Demšar, JMLR 7, 2006, section 3.2) ------------------------------

def tie_groups(values) -> np.ndarray:
    """Per row of the N × k array ``values``, each entry's group: 0 for the lowest value, +1 at every
    gap larger than TOLERANCE · max(1, |v|), so that float noise of equal means is a tie. NaN → NaN.

    The groups order the entries as the values do; ranking them ranks the values with exact ties.
    """
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    if values.ndim != 2:
        raise ValueError(f"rank_rows: expected an N × k array of values, got shape {values.shape}")
    missing = np.isnan(values)
    filled = np.where(missing, np.inf, values)
    order = np.argsort(filled, axis=1, kind="stable")
    ordered = np.take_along_axis(filled, order, axis=1)
    with np.errstate(invalid="ignore"):  # inf − inf between missing entries: NaN, not a gap
        gaps = np.diff(ordered, axis=1) > TOLERANCE * np.maximum(1.0, np.abs(ordered[:, 1:]))
    groups = np.zeros_like(ordered)
    groups[:, 1:] = np.cumsum(gaps, axis=1)
    out = np.empty_like(groups)
    np.put_along_axis(out, order, groups, axis=1)
    return np.where(missing, np.nan, out)


def rank_rows(values) -> np.ndarray:
    """Ranks within each row of the N × k array (1 = lowest; equal values, up to float noise, share
    the average of their ranks, e.g. 1, 2.5, 2.5, 4); NaN entries stay NaN and are not ranked."""
    groups = tie_groups(values)
    ranks = stats.rankdata(np.where(np.isnan(groups), np.inf, groups), method="average", axis=1)
    return np.where(np.isnan(groups), np.nan, ranks)


def friedman(values) -> dict:
    """Friedman's χ² and Iman–Davenport's F of the N × k array (N benchmarks, k algorithms, no NaN).

    With R_j the average rank of algorithm j, χ²_F = 12N/(k(k+1)) [Σ_j R_j² − k(k+1)²/4], divided by
    scipy's tie correction 1 − Σ(t³ − t)/(N k (k² − 1)) (``scipy.stats.friedmanchisquare`` on the
    rows' tie groups, so float noise of equal means is a tie); df k − 1. Iman & Davenport's
    F_F = (N − 1) χ²_F / (N(k − 1) − χ²_F) is referred to F with (k − 1, (k − 1)(N − 1)) df, less
    conservative than χ² (Demšar 2006, section 3.2.2). F_F = ∞ (p = 0) when every benchmark ranks
    the algorithms alike (χ²_F = N(k − 1)).
    """
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    if values.ndim != 2:
        raise ValueError(f"friedman: expected an N × k array (benchmarks × algorithms), "
                         f"got shape {values.shape}")
    n, k = values.shape
    if k < 3 or n < 2:
        raise ValueError(f"friedman: needs ≥ 3 algorithms on ≥ 2 benchmarks; "
                         f"got {n} benchmarks × {k} algorithms")
    if np.isnan(values).any():
        i, j = np.argwhere(np.isnan(values))[0]
        raise ValueError(f"friedman: benchmark {i}, algorithm {j} has no value (NaN); rank only "
                         "algorithms with results on every benchmark")
    groups = tie_groups(values)
    if (groups == 0).all():  # every benchmark a complete tie: nothing to test
        chi2, p = 0.0, 1.0
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            result = stats.friedmanchisquare(*groups.T)
        chi2, p = float(result.statistic), float(result.pvalue)
    return {"k": k, "n": n, "chi2": chi2, "pvalue": p, **iman_davenport(chi2, n, k)}


def iman_davenport(chi2: float, n: int, k: int) -> dict:
    """F_F = (N − 1)χ²_F / (N(k − 1) − χ²_F), its df (k − 1, (k − 1)(N − 1)) and p-value."""
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denominator = n * (k - 1) - chi2
    f = math.inf if denominator <= TOLERANCE * n * k else (n - 1) * chi2 / denominator
    p = 0.0 if math.isinf(f) else float(stats.f.sf(f, df1, df2))
    return {"F": f, "df1": df1, "df2": df2, "F_pvalue": p}


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """q_α of the Nemenyi test: the studentized range's 1 − α quantile for k groups and infinite df,
    divided by √2 (Demšar 2006, Table 5(a): 1.960, 2.343, 2.569, … for k = 2, 3, 4)."""
    if k < 2 or not 0 < alpha < 1:
        raise ValueError(f"nemenyi_q: needs k ≥ 2 algorithms and 0 < α < 1; got k = {k}, α = {alpha}")
    return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))


def nemenyi_cd(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference CD = q_α √(k(k + 1)/(6N)): two of k algorithms ranked over N
    benchmarks differ significantly when their average ranks differ by at least CD."""
    if n < 1:
        raise ValueError(f"nemenyi_cd: needs N ≥ 1 benchmarks; got N = {n}")
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6 * n))


def cd_groups(average_ranks: dict, cd: float) -> list[list[str]]:
    """The maximal groups of algorithms, consecutive by average rank, whose ranks span less than ``cd``
    (not significantly different by Nemenyi's test); singletons are left out. Lowest ranks first."""
    if not (np.isfinite(cd) and cd > 0):
        raise ValueError(f"cd_groups: the critical difference must be a positive number; got {cd}")
    names = sorted(average_ranks, key=lambda a: (average_ranks[a], a))
    r = np.array([average_ranks[a] for a in names], dtype=np.float64)
    last = np.searchsorted(r, r + cd, side="left") - 1  # the last j with r_j − r_i < cd
    groups, reach = [], -1
    for i, j in enumerate(last):
        if j > i and j > reach:  # not inside the previous group
            groups.append(names[i:j + 1])
        reach = max(reach, j)
    return groups
