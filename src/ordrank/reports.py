"""Reports of the batch ordinal-regression benchmark, computed from the tidy results table only.

The table is long: one row per (dataset, bins, algorithm, split, metric) with its ``value``, the
chosen hyper-parameters ``params`` and a ``status`` ("ok", a solver status, or "failed: ...").
A failed row has value NaN: it is counted as failed and left out of every mean and test.

A *benchmark* below is one value of the report's block keys, e.g. (dataset, bins) = abalone with 10
ranks; each is one "data set" for the rank statistics. The metrics are errors (lower is better) or
seconds. What a report shows -- block keys, Wilcoxon reference, column order, the README table's
rows and columns -- is the ``report:`` section of the experiment's config (:class:`ReportSpec`);
nothing here names a study's algorithms.
Every function is a pure function of the table; ``write_report`` writes the files, sorted and with
fixed decimals, so that the same table always gives the same bytes.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ordrank.paired_tests import (cd_groups, exact_differences, friedman as friedman_test, holm,
                                  mean_and_sign, nemenyi_cd, over_benchmarks, rank_rows, wilcoxon_pvalue)
from ordrank.report_spec import ReportSpec, spec_for as _spec  # noqa: F401 (ReportSpec: re-exported)
from ordrank.results import atomic_path, write_table

TITLES = {"mae": "Test mean absolute error", "zero_one": "Test zero-one error"}
ALPHA = 0.05


def metric_rows(table: pd.DataFrame, metric: str, spec: ReportSpec | None = None) -> pd.DataFrame:
    """The rows of one metric, with a boolean ``failed`` column; one row per partition required."""
    spec = _spec(table, spec)
    rows = table[table["metric"] == metric].copy()
    status = rows["status"].astype(str) if "status" in rows else pd.Series("ok", index=rows.index)
    rows["failed"] = rows["value"].isna() | status.str.startswith("failed")
    rows.loc[rows["failed"], "value"] = np.nan
    keys = [*spec.block, "algorithm", spec.partition]
    duplicated = rows.duplicated(keys, keep=False)
    if duplicated.any():
        first = rows.loc[duplicated, keys].iloc[0].tolist()
        raise ValueError(f"{metric}: more than one row per partition, e.g. {first}")
    return rows


def summary(table: pd.DataFrame, metric: str, spec: ReportSpec | None = None) -> pd.DataFrame:
    """Mean ± standard error over partitions per (block, algorithm), e.g. (dataset, bins, algorithm).

    With the n values x_1..x_n of the partitions that did not fail, ``mean`` = Σx/n and
    ``sem`` = s/√n, where s is the sample standard deviation (divisor n − 1); sem is NaN for n = 1.
    ``failed`` counts the partitions that failed.
    """
    spec = _spec(table, spec)
    block = list(spec.block)
    rows = metric_rows(table, metric, spec)
    out = rows.groupby([*block, "algorithm"], sort=True).agg(
        mean=("value", "mean"), sem=("value", "sem"), n=("value", "count"), failed=("failed", "sum"))
    out = out.reset_index()
    out["n"] = out["n"].astype(int)
    out["failed"] = out["failed"].astype(int)
    return out[[*block, "algorithm", "mean", "sem", "n", "failed"]]


def paired_wilcoxon(table: pd.DataFrame, metric: str, reference: str | None = None,
                    spec: ReportSpec | None = None) -> pd.DataFrame:
    """Each algorithm against ``reference`` (default: the spec's) on the partitions where both have a value.

    The differences d_i = algorithm − reference over the paired partitions (float noise of equal
    errors set to an exact 0: :func:`ordrank.paired_tests.exact_differences`) go to the two-sided
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
    noise: :func:`ordrank.paired_tests.rank_rows`) sharing the average of their ranks. ``ranks`` holds
    per algorithm the mean of its ranks over the benchmarks where it has results (``n_datasets``);
    averages are comparable only between algorithms present everywhere (``in_friedman``). Ranks
    among a subset differ from ranks among all: a peer that duplicates a method pushes others down.

    Friedman's test asks whether all k algorithms are equally good: with R_j the average rank of
    algorithm j over N benchmarks, χ² = 12N/(k(k+1)) Σ_j (R_j − (k+1)/2)², corrected for ties and
    referred to χ² with k − 1 degrees of freedom; Iman–Davenport's F_F = (N−1)χ²/(N(k−1) − χ²) is
    referred to F(k − 1, (k − 1)(N − 1)); Nemenyi's critical difference ``cd`` = q_α √(k(k+1)/(6N))
    at α = ALPHA (:mod:`ordrank.paired_tests`). They need the same algorithms on every benchmark, so
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
    friedman.update(statistic=result["chi2"], pvalue=result["pvalue"], F=result["F"],
                    F_pvalue=result["F_pvalue"], cd=nemenyi_cd(len(complete), len(wide), ALPHA),
                    ranks=dict(zip(complete, rank_rows(values).mean(axis=0))))
    friedman["note"] = (f"chi2({len(complete) - 1}) = {result['chi2']:.3f}, p = {result['pvalue']:.3g}; "
                        f"Iman–Davenport F({result['df1']}, {result['df2']}) = {result['F']:.3f}, "
                        f"p = {result['F_pvalue']:.3g}; over {len(complete)} algorithms and "
                        f"{len(wide)} benchmarks; Nemenyi CD (α = {ALPHA}) = {friedman['cd']:.3f}")
    return ranks, friedman


def rank_table(table: pd.DataFrame, metric: str, spec: ReportSpec | None = None) -> pd.DataFrame:
    """``average_ranks``'s table among all algorithms, with ``average_rank_methods`` (the ranks among
    the spec's methods; NaN for the others) when the spec names peers."""
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
    (:func:`ordrank.paired_tests.over_benchmarks`): sign test and Wilcoxon on the mean differences.
    """
    spec = _spec(table, spec)
    block, reference = list(spec.block), spec.reference
    tests = paired_wilcoxon(table, metric, spec=spec)
    present = [a for a in column_order(tests["algorithm"].unique(), spec.order)
               if algorithms is None or a in algorithms]
    rank = {a: i for i, a in enumerate(present)}
    tests = tests[tests["algorithm"].isin(present)].copy()
    order = {d: i for i, d in enumerate(spec.datasets)}
    tests["_a"], tests["_d"] = tests["algorithm"].map(rank), tests["dataset"].map(order).fillna(len(order))
    tests = tests.sort_values(["_a", "_d", *block], kind="stable")
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


def column_order(algorithms, order=()) -> list[str]:
    """``order`` restricted to ``algorithms``, then the others alphabetically."""
    order = list(order or ())
    present = set(algorithms)
    return [a for a in order if a in present] + sorted(present - set(order))


def markdown_table(table: pd.DataFrame, metric: str, reference: str | None = None, order=None,
                   decimals: int = 3, spec: ReportSpec | None = None) -> str:
    """Markdown table: a row per benchmark (block value), a column per algorithm, cells "mean ± 1 s.e.".

    The lowest mean of a row is **bold**; † marks p < 0.05 in the Wilcoxon test against
    ``reference``; "(k failed)" counts failed partitions. Below: average ranks and Friedman's test.
    Columns follow ``order`` (default: the spec's methods, then its peers).
    """
    spec = _spec(table, spec, reference=reference)
    block, reference = list(spec.block), spec.reference
    means = summary(table, metric, spec)
    tests = paired_wilcoxon(table, metric, spec=spec)
    significant = set(map(tuple, tests.loc[tests["pvalue"] < ALPHA, [*block, "algorithm"]].to_numpy()))
    columns = column_order(means["algorithm"].unique(), spec.order if order is None else order)
    width = len(block)
    cells = {tuple(r[:width + 1]): r[width + 1:]
             for r in means[[*block, "algorithm", "mean", "sem", "failed"]].to_numpy()}
    align = ["---:" if pd.api.types.is_numeric_dtype(means[k]) else "---" for k in block]
    lines = ["| " + " | ".join(block) + " | " + " | ".join(columns) + " |",
             "|" + "|".join(align) + "|" + "---:|" * len(columns)]
    for key, group in means.groupby(block, sort=True):
        best = group["mean"].min()
        row = []
        for algorithm in columns:
            if (*key, algorithm) not in cells:
                row.append("–")
                continue
            mean, sem, failed = cells[(*key, algorithm)]
            if np.isnan(mean):
                text = "failed"
            else:
                text = f"{mean:.{decimals}f}" + ("" if np.isnan(sem) else f" ± {sem:.{decimals}f}")
                text = f"**{text}**" if mean == best else text
                text += "†" if (*key, algorithm) in significant else ""
            row.append(text + (f" ({int(failed)} failed)" if failed else ""))
        lines.append("| " + " | ".join(map(str, key)) + " | " + " | ".join(row) + " |")
    lines += _rank_rows(table, metric, spec, columns, width)
    legend = (f"Mean ± 1 standard error over partitions; **bold**: lowest mean of the row; "
              f"†: differs from {reference} at p < {ALPHA} (two-sided Wilcoxon signed-rank test "
              f"on paired partitions, before Holm's adjustment); average rank: 1 = best, over the "
              f"benchmarks where present.")
    friedman = "\n\n".join(friedman_line(f, among) for among, (_, f) in _rankings(table, metric, spec))
    return "\n".join(lines) + "\n\n" + legend + "\n\n" + friedman + "\n"


def _rankings(table: pd.DataFrame, metric: str, spec: ReportSpec) -> list:
    """[(whose ranks, average_ranks(...))]: among all algorithms, and among the spec's methods when
    it names peers too (a peer duplicating a method shifts the ranks among all)."""
    out = [("among all algorithms" if spec.peers else "", average_ranks(table, metric, spec))]
    present = set(table.loc[table["metric"] == metric, "algorithm"])
    methods = [a for a in spec.methods if a in present]
    if spec.peers and len(methods) < len(present):
        out.append(("among the methods", average_ranks(table, metric, spec, among=methods)))
    return out


def _rank_rows(table, metric, spec, columns, width) -> list[str]:
    """The markdown table's average-rank rows: among all algorithms, then among the methods."""
    lines = []
    for among, (ranks, _) in _rankings(table, metric, spec):
        by_name = dict(zip(ranks["algorithm"], ranks["average_rank"]))
        whose = among.removeprefix("among ").removeprefix("the ")
        label = f"average rank ({whose})" if among else "average rank"
        lines.append(f"| {label} | " + "| " * (width - 1) + " | ".join(
            f"{by_name[a]:.2f}" if a in by_name else "–" for a in columns) + " |")
    return lines


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


def time_table(table: pd.DataFrame) -> pd.DataFrame:
    """Mean seconds per (dataset, algorithm) over bins and partitions: refit and model selection.

    ``table`` is the timings table (:func:`ordrank.results.read_timings`) or any table holding
    ``fit_seconds`` / ``cv_seconds`` rows (a results table written before they had their own)."""
    rows = table[table["metric"].isin(["fit_seconds", "cv_seconds"])]
    out = rows.groupby(["dataset", "algorithm", "metric"], sort=True)["value"].mean().unstack("metric")
    out = out.reindex(columns=["fit_seconds", "cv_seconds"]).astype(float).reset_index()
    out.columns.name = None
    return out.sort_values(["dataset", "algorithm"], kind="stable", ignore_index=True)


def time_markdown(times: pd.DataFrame, order=(), decimals: int = 3) -> str:
    """Markdown table of ``time_table``: a row per data set, cells "fit / cv" in seconds."""
    columns = column_order(times["algorithm"].unique(), order)
    cells = {(d, a): (f, c) for d, a, f, c in times[["dataset", "algorithm", "fit_seconds",
                                                     "cv_seconds"]].to_numpy()}
    lines = ["| dataset | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for dataset in sorted(times["dataset"].unique()):
        row = [" / ".join(f"{v:.{decimals}f}" if not np.isnan(v) else "–" for v in cells[(dataset, a)])
               if (dataset, a) in cells else "–" for a in columns]
        lines.append(f"| {dataset} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def fixed(frame: pd.DataFrame, decimals: int = 6) -> pd.DataFrame:
    """Float columns as text with fixed decimals (p-values in scientific notation); NaN → ""."""
    frame = frame.copy()
    for name in frame.columns:
        if pd.api.types.is_float_dtype(frame[name]):
            spec = ".4e" if name.startswith("pvalue") else f".{decimals}f"
            frame[name] = [("" if np.isnan(v) else format(v, spec)) for v in frame[name]]
    return frame


def write_text(text: str, path: Path) -> Path:
    """Write ``text`` to ``path`` atomically (a temp file beside it, then a rename)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    return path


def write_report(table: pd.DataFrame, out_dir, reference: str | None = None, order=None,
                 spec: ReportSpec | None = None, title: str = "Batch ordinal-regression benchmark",
                 script: str = "experiments/report_svor_benchmark.py", paired: bool = False,
                 statistics: bool = False, timings: pd.DataFrame | None = None) -> Path:
    """Write report.md and the summary, Wilcoxon, rank and time CSVs under ``out_dir``.

    The training-time section comes from ``timings`` (the timings table beside the results
    table, :func:`ordrank.results.read_timings`), or from ``table``'s own seconds rows if None.

    ``spec`` defaults to the ``report:`` section of the table's experiment config; ``reference``
    and ``order`` override its reference and column order. ``title`` and ``script`` head report.md;
    ``paired`` adds, per metric, the paired tests with Holm's adjustment (:func:`paired_markdown`);
    ``statistics`` Demšar's rank statistics (:func:`rank_statistics_markdown`).
    """
    spec = _spec(table, spec, reference=reference)
    order = spec.order if order is None else order
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    scored = table[table["metric"].isin(list(TITLES))]
    n_splits = scored[spec.partition].nunique()
    n_benchmarks = len(scored[list(spec.block)].drop_duplicates())
    kinds = " × ".join("data set" if k == "dataset" else k for k in spec.block)
    parts = [
        f"# {title}",
        "",
        f"Generated from the tidy results table by `{script}` — do not "
        f"edit by hand. Covers {scored['dataset'].nunique()} data sets ({n_benchmarks} {kinds} "
        f"benchmarks), {n_splits} partitions and {scored['algorithm'].nunique()} algorithms; "
        f"Wilcoxon reference: {spec.reference}.",
    ]
    for metric, heading in TITLES.items():
        parts += ["", f"## {heading}", ""]
        if not (table["metric"] == metric).any():
            parts.append("No results for this metric.")
        else:
            parts.append(markdown_table(table, metric, order=order, spec=spec).rstrip("\n"))
            if statistics:
                parts += ["", "### Rank statistics (Demšar 2006)", "",
                          rank_statistics_markdown(table, metric, spec).rstrip("\n")]
            if paired:
                parts += ["", f"### Paired tests against {spec.reference}", "",
                          paired_markdown(table, metric, order, spec=spec).rstrip("\n")]
        write_table(fixed(summary(table, metric, spec)), out_dir / f"summary_{metric}.csv")
        write_table(fixed(paired_wilcoxon(table, metric, spec=spec)), out_dir / f"wilcoxon_{metric}.csv")
        write_table(fixed(rank_table(table, metric, spec)), out_dir / f"ranks_{metric}.csv")
    times = time_table(table if timings is None else timings)
    over = " and ".join([*(k for k in spec.block if k != "dataset"), "partitions"])
    parts += ["", "## Training time (seconds)", "",
              f"Mean over {over}: refit on the whole training part / cross-validated "
              "model selection.", "", time_markdown(times, order).rstrip("\n")]
    write_table(fixed(times), out_dir / "times.csv")
    return write_text("\n".join(parts) + "\n", out_dir / "report.md")


# --- The README's generated tables -----------------------------------------------------------------
# The README holds tables computed from the committed results tables, between the markers
#     <!-- BEGIN table:NAME --> ... <!-- END table:NAME -->
# `experiments/reproduce.py` rewrites them; tests/test_reproduce.py checks they are up to date.

def final_losses(table: pd.DataFrame, metric: str = "time_avg_rank_loss") -> pd.DataFrame:
    """Per algorithm, the metric at the table's last step: mean, standard error s/√n and n seeds."""
    rows = table[table["metric"] == metric]
    if rows.empty:
        raise ValueError(f"table has no rows with metric {metric!r}")
    last = rows[rows["step"] == rows["step"].max()]
    out = last.groupby("algorithm", sort=True)["value"].agg(mean="mean", sem="sem", n="count")
    out = out.reset_index()
    out["step"] = int(rows["step"].max())
    return out


def _config_value(table: pd.DataFrame, column: str):
    """The one value of a ``config.*`` column, or None when the column is absent."""
    if column not in table.columns:
        return None
    values = table[column].unique()
    if len(values) != 1:
        raise ValueError(f"{column} takes {len(values)} values in one table: {sorted(map(str, values))}")
    return values[0]


def algorithm_label(table: pd.DataFrame, algorithm: str) -> str:
    """``algorithm``, with Widrow-Hoff's step size (and whether it is normalized) from the config."""
    eta = _config_value(table, f"config.algorithms.{algorithm}.eta")
    if eta is None:
        return algorithm
    normalized = _config_value(table, f"config.algorithms.{algorithm}.normalized") in (True, "true")
    return f"{algorithm} ({'normalized, ' if normalized else ''}η = {float(eta):g})"


def _mean_sem(mean: float, sem: float, decimals: int, bold: bool = False) -> str:
    text = f"{mean:.{decimals}f}"
    text = f"**{text}**" if bold else text
    return text + ("" if np.isnan(sem) else f" ± {sem:.{decimals}f}")


def online_final_markdown(table: pd.DataFrame, unit: str = "sequences", decimals: int = 4) -> str:
    """Markdown: one row per algorithm (lowest final loss first), "mean ± 1 s.e." over the seeds."""
    final = final_losses(table).sort_values(["mean", "algorithm"], kind="stable")
    step = int(final["step"].iloc[0])
    lines = [f"| algorithm | loss at t = {step} |", "|---|---|"]
    lines += [f"| {algorithm_label(table, r.algorithm)} | {_mean_sem(r.mean, r.sem, decimals)} |"
              for r in final.itertuples()]
    n = int(final["n"].max())
    return "\n".join(lines) + f"\n\nMean ± 1 standard error over the {n} {unit}.\n"


ONLINE_ORDER = ["PRank", "MCP", "WH", "Predtron-L2", "Predtron-L1"]


def online_comparison_markdown(rows, algorithms=None, decimals: int = 3) -> str:
    """Markdown: a row per (label, table) of ``rows``, a column per algorithm, at each table's last step.

    Cells are "mean ± 1 s.e." over the table's seeds (target users); the lowest mean of a row is bold.
    ``algorithms`` defaults to those of the first table (ONLINE_ORDER first, then the others sorted).
    Column titles take each algorithm's label (e.g. WH's step size) from the first table.
    """
    rows = list(rows)
    if not rows:
        raise ValueError("no tables to compare")
    first = rows[0][1]
    if algorithms is None:
        algorithms = column_order(first["algorithm"].unique(), ONLINE_ORDER)
    header = [algorithm_label(first, a) for a in algorithms]
    lines = ["| data | targets (t = last round) | " + " | ".join(header) + " |",
             "|---|---|" + "---|" * len(algorithms)]
    for label, table in rows:
        final = final_losses(table).set_index("algorithm")
        missing = [a for a in algorithms if a not in final.index]
        if missing:
            raise ValueError(f"{label}: no results for {missing}")
        best = final.loc[list(algorithms), "mean"].min()
        cells = [_mean_sem(final.loc[a, "mean"], final.loc[a, "sem"], decimals,
                           bold=final.loc[a, "mean"] == best) for a in algorithms]
        targets = int(final["n"].max())
        lines.append(f"| {label} | {targets:,} (t = {int(final['step'].iloc[0])}) | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\nMean ± 1 standard error over the target users; bold: lowest of the row.\n"


def benchmark_readme_markdown(table: pd.DataFrame, metric: str = "mae", columns=None, decimals: int = 3,
                              spec: ReportSpec | None = None) -> str:
    """Markdown: a row per data set (the spec's ``datasets`` order), a column per algorithm of ``columns``.

    ``columns`` defaults to the spec's ``readme_columns``; the rows are those of the spec's
    ``readme_where`` (e.g. bins = 10). Cells are "mean ± 1 s.e." over the partitions; the lowest
    mean of the row among these columns is bold; "(k failed)" counts failed partitions, "–" marks
    no results.
    """
    spec = _spec(table, spec)
    columns = list(spec.readme_columns if columns is None else columns)
    if not columns:
        raise ValueError("no README columns: set report.readme_columns in the experiment config")
    rows = table
    for key, value in spec.readme_where.items():
        rows = rows[rows[key] == value]
    means = summary(rows, metric, spec)
    if means.empty:
        where = ", ".join(f"{k} = {v}" for k, v in spec.readme_where.items()) or "any rows"
        raise ValueError(f"no {metric} results with {where}")
    cells = means.set_index(["dataset", "algorithm"])
    present = set(means["dataset"])
    datasets = [d for d in spec.datasets if d in present] + sorted(present - set(spec.datasets))
    lines = ["| data set | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for dataset in datasets:
        shown = [cells.loc[(dataset, a)] if (dataset, a) in cells.index else None for a in columns]
        best = min((c["mean"] for c in shown if c is not None and not np.isnan(c["mean"])),
                   default=np.nan)
        row = []
        for cell in shown:
            if cell is None:
                row.append("–")
                continue
            text = "failed" if np.isnan(cell["mean"]) else _mean_sem(cell["mean"], cell["sem"], decimals,
                                                                     bold=cell["mean"] == best)
            row.append(text + (f" ({int(cell['failed'])} failed)" if cell["failed"] else ""))
        lines.append(f"| {dataset} | " + " | ".join(row) + " |")
    n = rows.loc[rows["metric"] == metric, spec.partition].nunique()
    subset = f" ({spec.readme_subset})" if spec.readme_subset else ""
    return ("\n".join(lines) + f"\n\nTest {LABELS_SHORT.get(metric, metric)}, mean ± 1 standard error "
            f"over the {n} partitions{subset}; bold: lowest of the row among these columns.\n")


LABELS_SHORT = {"mae": "MAE", "zero_one": "zero-one error"}


def marker(name: str) -> tuple[str, str]:
    """The README's begin and end markers of generated table ``name``."""
    return f"<!-- BEGIN table:{name} -->", f"<!-- END table:{name} -->"


def generated_blocks(text: str) -> dict[str, str]:
    """The content between every pair of markers in ``text``: {name: content}."""
    import re

    found = {}
    for match in re.finditer(r"<!-- BEGIN table:([\w.-]+) -->\n(.*?)<!-- END table:\1 -->", text, re.S):
        found[match.group(1)] = match.group(2)
    return found


def replace_block(text: str, name: str, content: str, where: str = "README.md") -> str:
    """``text`` with the content between the markers of ``name`` replaced by ``content``.

    Raises ValueError naming ``where`` and the marker when the pair is missing or not unique.
    """
    begin, end = marker(name)
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ValueError(f"{where}: expected exactly one '{begin}' followed by one '{end}'")
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    return f"{head}{begin}\n{content.rstrip(chr(10))}\n{end}{tail}"
