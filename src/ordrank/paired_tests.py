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
    Rejecting where p̃ < α controls the family-wise error rate at α.
    """
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    present = ~np.isnan(p)
    if present.any():
        out[present] = multipletests(p[present], method="holm")[1]
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
