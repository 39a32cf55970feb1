"""ordrank's methods beside the established codes that implement the same method (the yardsticks).

The report's ``yardsticks`` maps an external learner to the ordrank method it implements, e.g. skordinal-SVORIM
(the authors' C SMO) → SVORIM. For each such pair and benchmark the report shows how far apart the
two are on the same partitions: the mean paired difference d_i = method − yardstick (< 0: ordrank's
error is lower), the two-sided Wilcoxon signed-rank p-value with Holm's adjustment over the pair's
benchmarks (:func:`ordrank.reports.statistics.paired_wilcoxon`), on how many partitions the model
selection chose the same hyper-parameters (the ``params`` column), and the ratio of the yardstick's
job time (cross-validation + refit, from the timings table) to the method's on the partitions both
have. Two implementations of one method should differ by little more than solver tolerance; a
partition where their cross-validation chose other hyper-parameters usually explains a larger gap.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ordrank.reports.spec import ReportSpec, spec_for as _spec
from ordrank.reports.statistics import ALPHA, paired_wilcoxon, rows_in_order
from ordrank.reports.summaries import metric_rows

TIME_METRICS = ("cv_seconds", "fit_seconds")


def yardstick_tests(table: pd.DataFrame, metric: str, spec: ReportSpec | None = None) -> pd.DataFrame:
    """A row per (benchmark, method, yardstick) where both have results on some partition.

    Columns: the block keys, ``algorithm`` (ordrank's method), ``yardstick``, ``n_pairs``, ``mean`` /
    ``yardstick_mean`` (over the paired partitions), ``mean_difference`` (method − yardstick),
    ``pvalue``, ``pvalue_holm`` (over the pair's benchmarks), ``sign`` and ``same_params`` (paired
    partitions whose chosen hyper-parameters are equal)."""
    spec = _spec(table, spec)
    block, partition = list(spec.block), spec.partition
    columns = [*block, "algorithm", "yardstick", "n_pairs", "mean", "yardstick_mean", "mean_difference",
               "pvalue", "pvalue_holm", "sign", "same_params"]
    frames = []
    for yardstick, method in spec.yardsticks.items():
        pair = table[table["algorithm"].isin([method, yardstick])]
        rows = metric_rows(pair, metric, spec).dropna(subset=["value"])
        if rows["algorithm"].nunique() < 2:
            continue
        tests = paired_wilcoxon(pair, metric, reference=yardstick, spec=spec)
        tests = tests[tests["n_pairs"] > 0].rename(columns={"reference": "yardstick"})
        wide = rows.pivot_table(index=[*block, partition], columns="algorithm", values="value",
                                aggfunc="first").dropna()
        params = rows.pivot_table(index=[*block, partition], columns="algorithm", values="params",
                                  aggfunc="first").reindex(wide.index)
        wide["same"] = params[method] == params[yardstick]
        means = wide.groupby(level=block).agg(mean=(method, "mean"), yardstick_mean=(yardstick, "mean"),
                                              same_params=("same", "sum"))
        frames.append(tests.merge(means.reset_index(), on=block, how="left"))
    if not frames:
        return pd.DataFrame(columns=columns)
    out = pd.concat(frames, ignore_index=True)[columns]
    out["same_params"] = out["same_params"].astype(int)
    return out


def yardstick_times(timings: pd.DataFrame, spec: ReportSpec) -> pd.DataFrame:
    """Mean job seconds (cross-validation + refit) of each method and its yardstick per benchmark, over
    the partitions both have, and their ratio (yardstick / method)."""
    block, partition = list(spec.block), spec.partition
    columns = [*block, "algorithm", "yardstick", "n_pairs", "seconds", "yardstick_seconds", "ratio"]
    rows = timings[timings["metric"].isin(TIME_METRICS)]
    jobs = rows.groupby([*block, partition, "algorithm"], sort=True)["value"].sum(min_count=2)
    jobs = jobs.unstack("algorithm") if len(jobs) else pd.DataFrame()
    records = []
    for yardstick, method in spec.yardsticks.items():
        if method not in jobs or yardstick not in jobs:
            continue
        both = jobs[[method, yardstick]].dropna()
        for key, group in both.groupby(level=block, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            records.append({**dict(zip(block, key)), "algorithm": method, "yardstick": yardstick,
                            "n_pairs": len(group), "seconds": group[method].mean(),
                            "yardstick_seconds": group[yardstick].mean(),
                            "ratio": group[yardstick].sum() / group[method].sum()})
    return pd.DataFrame(records, columns=columns)


def yardstick_markdown(table: pd.DataFrame, metric: str, spec: ReportSpec | None = None,
                       decimals: int = 4) -> str:
    """Markdown: :func:`yardstick_tests` as a table, with its legend."""
    spec = _spec(table, spec)
    block = list(spec.block)
    tests = rows_in_order(yardstick_tests(table, metric, spec), "yardstick", spec.yardsticks, spec)
    if tests.empty:
        return "No benchmark has both a method and its yardstick.\n"
    lines = ["| " + " | ".join(block) + " | method | yardstick | partitions | method's mean | yardstick's mean"
             " | difference | p | p (Holm) | same hyper-parameters |",
             "|" + "---|" * len(block) + "---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in tests.to_dict("records"):
        p = "–" if np.isnan(r["pvalue"]) else f"{r['pvalue']:.2g}"
        holm_p = "–" if np.isnan(r["pvalue_holm"]) else f"{r['pvalue_holm']:.2g}"
        if r["pvalue_holm"] < ALPHA and r["sign"] in ("better", "worse"):
            holm_p = f"**{holm_p}**"
        lines.append("| " + " | ".join(str(r[k]) for k in block) + f" | {r['algorithm']} | {r['yardstick']} | "
                     f"{r['n_pairs']} | {r['mean']:.{decimals}f} | {r['yardstick_mean']:.{decimals}f} | "
                     f"{r['mean_difference']:+.{decimals}f} | {p} | {holm_p} | {r['same_params']} of {r['n_pairs']} |")
    legend = ("Each of ordrank's methods beside an established implementation of the same method, on the "
              "partitions both have: difference = method − yardstick (mean of the paired differences; < 0: "
              "ordrank's error is lower); two-sided Wilcoxon signed-rank test, Holm's adjustment over the "
              f"pair's benchmarks (bold: p (Holm) < {ALPHA}); same hyper-parameters: partitions where both "
              "model selections chose the same values.")
    return "\n".join(lines) + "\n\n" + legend + "\n"


def yardstick_time_markdown(timings: pd.DataFrame, spec: ReportSpec, decimals: int = 1) -> str:
    """Markdown: :func:`yardstick_times` as a table, with its legend ("" when no pair has times)."""
    times = yardstick_times(timings, spec)
    if times.empty:
        return ""
    times = rows_in_order(times, "yardstick", spec.yardsticks, spec)
    block = list(spec.block)
    lines = ["| " + " | ".join(block) + " | method | yardstick | partitions | method (s) | yardstick (s) | ratio |",
             "|" + "---|" * len(block) + "---|---|---:|---:|---:|---:|"]
    for r in times.to_dict("records"):
        lines.append("| " + " | ".join(str(r[k]) for k in block) + f" | {r['algorithm']} | {r['yardstick']} | "
                     f"{r['n_pairs']} | {r['seconds']:,.{decimals}f} | {r['yardstick_seconds']:,.{decimals}f} | "
                     f"{r['ratio']:.2f} |")
    legend = ("Mean job time (cross-validated model selection + refit) over the partitions both have; "
              "ratio = the yardstick's total over the method's. The times are as recorded: jobs of one "
              "benchmark that ran on different machines or beside other work are not strictly comparable.")
    return "\n".join(lines) + "\n\n" + legend + "\n"
