"""The reports' statistics over benchmarks: paired Wilcoxon tests with Holm's adjustment, average
ranks, and Friedman's, Iman–Davenport's and Nemenyi's tests (Demšar 2006) as markdown text.

A *benchmark* below is one value of the report's block keys, e.g. (dataset, bins) = abalone with 10
ranks; each is one "data set" for the rank statistics. The metrics are errors (lower is better) or
seconds. The tests themselves are pure functions of arrays in :mod:`ordrank.reports.paired_tests`.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from ordrank.reports.paired_tests import (cd_groups, exact_differences, friedman as friedman_test, holm,
                                          mean_and_sign, nemenyi_cd, nemenyi_q, over_benchmarks, rank_rows,
                                          tie_groups, wilcoxon_pvalue)
from ordrank.reports.spec import ReportSpec, spec_for as _spec
from ordrank.reports.summaries import column_order, metric_rows, summary

ALPHA = 0.05
_TESTS: dict = {}  # paired_wilcoxon's results by (digest of the rows it tests, metric, spec): a report,
                   # its figures and the pages' tables ask for the same tests many times


def _digest(rows: pd.DataFrame, columns: list[str]) -> str:
    """A digest of ``rows``' ``columns`` (values and order), to recognise the same tests again."""
    return hashlib.sha256(pd.util.hash_pandas_object(rows[columns], index=False).to_numpy().tobytes()).hexdigest()


def paired_wilcoxon(table: pd.DataFrame, metric: str, reference: str | None = None,
                    spec: ReportSpec | None = None) -> pd.DataFrame:
    """Each algorithm against ``reference`` (default: the spec's) on the partitions where both have a value.

    The differences d_i = algorithm − reference over the paired partitions (float noise of equal
    errors set to an exact 0: :func:`ordrank.reports.paired_tests.exact_differences`) go to the two-sided
    Wilcoxon signed-rank test (zero differences dropped, scipy's default): it ranks |d_i| and asks
    whether the positive and negative ranks are balanced, i.e. whether the median difference is 0.
    If every difference is 0 the methods are indistinguishable and p = 1; with no pairs p is NaN.
    ``pvalue_holm``: Holm's adjustment over the family of one algorithm's tests against the
    reference on every benchmark of the table (e.g. its 9 data sets). ``sign`` is "better" (lower
    mean on the pairs), "worse" or "tie" (an exact sum of the differences of 0, not ~1e-17);
    ``n_pairs`` counts the pairs.
    """
    spec = _spec(table, spec, reference=reference)
    block, reference, partition = list(spec.block), spec.reference, spec.partition
    rows = metric_rows(table, metric, spec).dropna(subset=["value"])
    key = (_digest(rows, [*block, "algorithm", partition, "value"]), metric, repr(spec))
    if key not in _TESTS:
        if len(_TESTS) > 256:  # a long session: keep the memory bounded
            _TESTS.clear()
        _TESTS[key] = _paired_wilcoxon(rows, block, reference, partition)
    return _TESTS[key].copy()


def _paired_wilcoxon(rows: pd.DataFrame, block: list, reference: str, partition: str) -> pd.DataFrame:
    records = []
    for key, group in rows.groupby(block, sort=True):
        ref = group[group["algorithm"] == reference].set_index(partition)["value"]
        for algorithm, other in group.groupby("algorithm", sort=True):
            if algorithm == reference:
                continue
            pairs = other.set_index(partition)["value"].to_frame("x").join(ref.rename("r"), how="inner")
            diff = exact_differences(pairs["x"], pairs["r"])
            scale = float(np.abs(pairs.to_numpy()).max()) if len(pairs) else 1.0
            mean_diff, sign = mean_and_sign(diff, scale)
            records.append({**dict(zip(block, key)), "algorithm": algorithm,
                            "reference": reference, "n_pairs": len(diff),
                            "mean_difference": mean_diff, "pvalue": wilcoxon_pvalue(diff), "sign": sign})
    columns = [*block, "algorithm", "reference", "n_pairs", "mean_difference", "pvalue", "pvalue_holm",
               "sign"]
    out = pd.DataFrame(records, columns=columns)
    for _, family in out.groupby("algorithm", sort=True):
        out.loc[family.index, "pvalue_holm"] = holm(family["pvalue"].to_numpy())
    out["pvalue_holm"] = out["pvalue_holm"].astype(float)
    return out


def average_ranks(table: pd.DataFrame, metric: str, spec: ReportSpec | None = None, among=None):
    """Average ranks over benchmarks with Friedman's and Iman–Davenport's tests; ``(ranks, friedman)``.

    In each benchmark (one value of the spec's block, e.g. (dataset, bins)) the algorithms of
    ``among`` (default: all) with a mean are ranked by it, 1 = lowest, ties (equal means up to float
    noise: :func:`ordrank.reports.paired_tests.rank_rows`) sharing the average of their ranks. ``ranks`` holds
    per algorithm the mean of its ranks over the benchmarks where it has results (``n_datasets``);
    averages are comparable only between algorithms present everywhere (``in_friedman``). Ranks
    among a subset differ from ranks among all: an external learner that duplicates a method pushes others down.

    Friedman's test asks whether all k algorithms are equally good: with R_j the average rank of
    algorithm j over N benchmarks, χ² = 12N/(k(k+1)) Σ_j (R_j − (k+1)/2)², corrected for ties and
    referred to χ² with k − 1 degrees of freedom; Iman–Davenport's F_F = (N−1)χ²/(N(k−1) − χ²) is
    referred to F(k − 1, (k − 1)(N − 1)); Nemenyi's critical difference ``cd`` = q_α √(k(k+1)/(6N))
    at α = ALPHA (:mod:`ordrank.reports.paired_tests`). They need the same algorithms on every benchmark, so
    algorithms missing somewhere are left out (``friedman["left_out"]``), and are not applicable
    with fewer than 3 algorithms or 2 benchmarks.
    Note the benchmarks of one data set with different bins are not independent.
    """
    spec = _spec(table, spec)
    block = list(spec.block)
    means = summary(table, metric, spec).dropna(subset=["mean"])
    if among is not None:
        means = means[means["algorithm"].isin(list(among))]
    wide = means.pivot_table(index=block, columns="algorithm", values="mean", aggfunc="first")
    long = pd.DataFrame(rank_rows(wide.to_numpy()), index=wide.index, columns=wide.columns)
    long = long.stack().rename("rank").reset_index()
    complete = sorted(wide.columns[wide.notna().all()].tolist())
    left_out = sorted(set(wide.columns) - set(complete))
    ranks = long.groupby("algorithm", sort=True).agg(
        average_rank=("rank", "mean"), n_datasets=("rank", "count")).reset_index()
    ranks["n_datasets"] = ranks["n_datasets"].astype(int)
    ranks["in_friedman"] = ranks["algorithm"].isin(complete)
    ranks = ranks.sort_values(["average_rank", "algorithm"], kind="stable", ignore_index=True)
    friedman = {"statistic": np.nan, "pvalue": np.nan, "F": np.nan, "F_pvalue": np.nan, "cd": np.nan,
                "k": len(complete), "algorithms": complete, "left_out": left_out, "n_datasets": len(wide),
                "ranks": {}}
    if len(complete) < 3 or len(wide) < 2:
        friedman["note"] = (f"not applicable ({len(complete)} algorithms with results on every one "
                            f"of {len(wide)} benchmarks; needs at least 3 algorithms and 2 benchmarks)")
        return ranks, friedman
    values = wide[complete].to_numpy()
    result = friedman_test(values)
    k, n, mean_ranks = len(complete), len(wide), rank_rows(values).mean(axis=0)
    friedman.update(statistic=result["chi2"], pvalue=result["pvalue"], F=result["F"],
                    F_pvalue=result["F_pvalue"], cd=nemenyi_cd(k, n, ALPHA), ranks=dict(zip(complete, mean_ranks)),
                    tied=int(sum(len(np.unique(row)) < k for row in tie_groups(values))),
                    uncorrected=12 * n / (k * (k + 1)) * float(((mean_ranks - (k + 1) / 2) ** 2).sum()))
    friedman["note"] = (f"chi2({len(complete) - 1}) = {result['chi2']:.3f}, p = {result['pvalue']:.3g}; "
                        f"Iman–Davenport F({result['df1']}, {result['df2']}) = {result['F']:.3f}, "
                        f"p = {result['F_pvalue']:.3g}; over {len(complete)} algorithms and "
                        f"{len(wide)} benchmarks; Nemenyi CD (α = {ALPHA}) = {friedman['cd']:.3f}")
    return ranks, friedman


def rank_table(table: pd.DataFrame, metric: str, spec: ReportSpec | None = None) -> pd.DataFrame:
    """``average_ranks``'s table among all algorithms, with ``average_rank_methods`` (the ranks among
    the spec's methods; NaN for the others) when the spec names external learners."""
    spec = _spec(table, spec)
    rankings = _rankings(table, metric, spec)
    ranks = rankings[0][1][0]
    if len(rankings) > 1:
        methods = rankings[1][1][0].set_index("algorithm")["average_rank"]
        ranks.insert(2, "average_rank_methods", ranks["algorithm"].map(methods).astype(float))
    return ranks


def friedman_line(friedman: dict, among: str = "") -> str:
    """One markdown sentence for the Friedman result of ``average_ranks`` (``among``: whose ranks)."""
    line = f"Friedman test{' ' + among if among else ''}: {friedman['note']}."
    if friedman["left_out"]:
        line += f" Left out (results missing on some benchmark): {', '.join(friedman['left_out'])}."
    return line


def paired_markdown(table: pd.DataFrame, metric: str, algorithms=None, decimals: int = 3,
                    spec: ReportSpec | None = None) -> str:
    """Markdown: the paired tests of ``algorithms`` (default: the spec's order) against the reference.

    A row per (benchmark, algorithm): the mean paired difference (algorithm − reference; < 0: lower
    error), the raw Wilcoxon p-value and Holm's adjustment over the algorithm's benchmarks, and the
    verdict at α = 0.05 after Holm. Below, per algorithm, the tests over benchmarks
    (:func:`ordrank.reports.paired_tests.over_benchmarks`): sign test and Wilcoxon on the mean differences.
    """
    spec = _spec(table, spec)
    block, reference = list(spec.block), spec.reference
    tests = paired_wilcoxon(table, metric, spec=spec)
    present = [a for a in column_order(tests["algorithm"].unique(), spec.order)
               if algorithms is None or a in algorithms]
    tests = rows_in_order(tests[tests["algorithm"].isin(present)], "algorithm", present, spec)
    lines = ["| " + " | ".join(block) + f" | algorithm | mean difference (− {reference}) | p | p (Holm) | "
             "after Holm |", "|" + "---|" * len(block) + "---|---:|---:|---:|---|"]
    for r in tests.itertuples(index=False):
        r = r._asdict()
        significant = r["pvalue_holm"] < ALPHA and r["sign"] in ("better", "worse")
        verdict = f"**{r['sign']}**" if significant else "no significant difference"
        p = "–" if np.isnan(r["pvalue"]) else f"{r['pvalue']:.2g}"
        holm_p = "–" if np.isnan(r["pvalue_holm"]) else f"{r['pvalue_holm']:.2g}"
        lines.append("| " + " | ".join(str(r[k]) for k in block) + f" | {r['algorithm']} | "
                     f"{r['mean_difference']:+.{decimals}f} | {p} | {holm_p} | {verdict} |")
    notes = []
    for algorithm in present:
        rows = tests[tests["algorithm"] == algorithm]
        over = over_benchmarks(rows["mean_difference"], rows["sign"])
        holm_better = int(((rows["pvalue_holm"] < ALPHA) & (rows["sign"] == "better")).sum())
        holm_worse = int(((rows["pvalue_holm"] < ALPHA) & (rows["sign"] == "worse")).sum())
        notes.append(f"- **{algorithm} vs {reference}** over {over['benchmarks']} benchmarks: lower mean "
                     f"error on {over['better']}, higher on {over['worse']}, equal on {over['tie']} "
                     f"(two-sided sign test p = {over['sign_pvalue']:.3g}; Wilcoxon signed-rank test on "
                     f"the benchmarks' mean differences p = {over['wilcoxon_pvalue']:.3g}); significantly "
                     f"(Holm, α = {ALPHA}) better on {holm_better}, worse on {holm_worse}.")
    legend = (f"Two-sided Wilcoxon signed-rank tests on the paired partitions (float noise of equal "
              f"errors counted as an exact 0); p (Holm): Holm's step-down adjustment over the "
              f"algorithm's {len(tests[block].drop_duplicates())} benchmarks.")
    return "\n".join(lines) + "\n\n" + legend + "\n\n" + "\n".join(notes) + "\n"


def rows_in_order(frame: pd.DataFrame, column: str, order, spec: ReportSpec) -> pd.DataFrame:
    """``frame``'s rows by the position of their ``column`` value in ``order``, then the spec's data-set
    order (data sets it does not list last), then the block keys."""
    position = {value: i for i, value in enumerate(order)}
    datasets = {d: i for i, d in enumerate(spec.datasets)}
    keyed = frame.assign(_a=frame[column].map(position), _d=frame["dataset"].map(datasets).fillna(len(datasets)))
    return keyed.sort_values(["_a", "_d", *spec.block], kind="stable").drop(columns=["_a", "_d"])


def _rankings(table: pd.DataFrame, metric: str, spec: ReportSpec) -> list:
    """[(whose ranks, average_ranks(...))]: among all algorithms, and among the spec's methods when
    it names external learners too (an external learner duplicating a method shifts the ranks among all)."""
    out = [("among all algorithms" if spec.external else "", average_ranks(table, metric, spec))]
    present = set(table.loc[table["metric"] == metric, "algorithm"])
    methods = [a for a in spec.methods if a in present]
    if spec.external and len(methods) < len(present):
        out.append(("among the methods", average_ranks(table, metric, spec, among=methods)))
    return out


def statistics_notes(table: pd.DataFrame, metric: str, spec: ReportSpec | None = None) -> str:
    """Markdown: how :func:`rank_statistics_markdown`'s numbers are computed where they differ from
    Demšar's (2006) text: Friedman's χ² corrected for ties (with the uncorrected value, his eq.) and
    Nemenyi's q_α from the studentized range (his Table 5 lists k ≤ 10). Empty when no test applies."""
    spec = _spec(table, spec)
    tested = [(among or "all", f) for among, (_, f) in _rankings(table, metric, spec)
              if not np.isnan(f["statistic"])]
    if not tested:
        return ""

    def tied(among, f):
        n, t = f["n_datasets"], f["tied"]
        if not t:
            return f"{among}, none of the {n} benchmarks has tied means (no correction)"
        return (f"{among}, {t} of the {n} benchmarks {'has' if t == 1 else 'have'} tied means (without "
                f"the correction, χ² = {f['uncorrected']:.2f})")

    ties = "; ".join(tied(among, f) for among, f in tested)
    ks = sorted({f["k"] for _, f in tested}, reverse=True)
    qs = " and ".join(f"{nemenyi_q(k, ALPHA):.3f} for k = {k}" for k in ks)
    where = ("beyond Demšar's Table 5 (k ≤ 10, whose values this quantile gives within 0.001)"
             if max(ks) > 10 else "as in Demšar's Table 5 (within 0.001)")
    return (f"Friedman's χ² above is corrected for ties (divided by 1 − Σ(t³ − t)/(N k (k² − 1)), t the "
            f"sizes of the groups of equal means, as scipy's `friedmanchisquare`), where Demšar (2006) gives "
            f"the uncorrected statistic: {ties}. Nemenyi's q_α (α = {ALPHA}) is the studentized range's "
            f"1 − α quantile for k groups and infinite degrees of freedom, divided by √2: q = {qs}, {where}.\n")


def rank_statistics_markdown(table: pd.DataFrame, metric: str, spec: ReportSpec | None = None) -> str:
    """Markdown: Demšar's (2006) statistics of one metric, ranked among all algorithms and among the
    spec's methods: Friedman's χ², Iman–Davenport's F, Nemenyi's CD and the groups it leaves
    undistinguished, the average ranks both ways, and how many paired Wilcoxon tests against the
    reference reach p < ALPHA before and after Holm's adjustment."""
    spec = _spec(table, spec)
    rankings = _rankings(table, metric, spec)
    lines = ["| ranked | k | N | Friedman χ² (df) | p | Iman–Davenport F (df) | p | "
             f"Nemenyi CD (α = {ALPHA}) |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for among, (_, f) in rankings:
        if np.isnan(f["statistic"]):
            lines.append(f"| {among or 'all'} | {f['k']} | {f['n_datasets']} | – | – | – | – | – |")
            continue
        df2 = (f["k"] - 1) * (f["n_datasets"] - 1)
        lines.append(f"| {among or 'all'} | {f['k']} | {f['n_datasets']} | {f['statistic']:.2f} "
                     f"({f['k'] - 1}) | {f['pvalue']:.2g} | {f['F']:.2f} ({f['k'] - 1}, {df2}) | "
                     f"{f['F_pvalue']:.2g} | {f['cd']:.2f} |")
    parts = ["\n".join(lines)]
    names = [among or "all" for among, _ in rankings]
    by = [f["ranks"] for _, (_, f) in rankings]
    order = sorted(by[0], key=lambda a: (by[-1].get(a, np.inf), by[0][a], a))
    if by[0]:
        rows = ["| algorithm | " + " | ".join(f"average rank ({n})" for n in reversed(names)) + " |",
                "|---|" + "---:|" * len(names)]
        rows += [f"| {a} | " + " | ".join(f"{r[a]:.2f}" if a in r else "–" for r in reversed(by)) + " |"
                 for a in order]
        parts.append("\n".join(rows))
    for among, (_, f) in rankings:
        if f["ranks"]:
            groups = cd_groups(f["ranks"], f["cd"])
            text = "; ".join("{" + ", ".join(g) + "}" for g in groups) or "none"
            parts.append(f"Groups not significantly different by Nemenyi's test ({among or 'all'}; "
                         f"average ranks within CD = {f['cd']:.2f}): {text}.")
    tests = paired_wilcoxon(table, metric, spec=spec).dropna(subset=["pvalue"])
    raw, family = int((tests["pvalue"] < ALPHA).sum()), holm(tests["pvalue"].to_numpy())
    decided = tests["sign"].isin(["better", "worse"])
    survive = (tests["pvalue_holm"] < ALPHA) & decided
    better = int((survive & (tests["sign"] == "better")).sum())
    parts.append(f"Paired Wilcoxon tests against {spec.reference}: {raw} of {len(tests)} at p < {ALPHA}; "
                 f"{int(survive.sum())} after Holm's adjustment over each algorithm's benchmarks "
                 f"({better} better, {int(survive.sum()) - better} worse), "
                 f"{int(((family < ALPHA) & decided).sum())} after Holm's adjustment over all "
                 f"{len(tests)}. Signs come from the exact paired differences (float noise of equal "
                 f"errors is a tie).")
    return "\n\n".join(parts) + "\n"
