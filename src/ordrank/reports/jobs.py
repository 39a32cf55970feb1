"""Where a sweep's jobs ran: per block (e.g. data set x ranks) and learner, the jobs, their time (from
the timings table: cross-validation + refit) and the hosts that ran them (from the jobs table beside
the results table, ``ordrank.results.files.jobs_path``; ``unknown`` for jobs made before hosts were
recorded)."""
from __future__ import annotations

import pandas as pd

from ordrank.reports.spec import ReportSpec
from ordrank.reports.yardsticks import TIME_METRICS

RECORDED = {"experiment", "algorithm", "host", "cpu", "versions", "seconds", "engine"}


def jobs_time(timings: pd.DataFrame, jobs: pd.DataFrame, spec: ReportSpec) -> pd.DataFrame:
    """One row per block and algorithm: ``jobs``, ``hours`` (summed job time), ``mean_s`` and
    ``hosts`` ("host (CPU model)", every one that ran some of them, sorted)."""
    swept = [c for c in jobs.columns if c not in RECORDED]
    timed = timings[timings["metric"].isin(TIME_METRICS)]
    per_job = timed.groupby([*(f"config.{k}" for k in swept), "algorithm", *spec.block], dropna=False)["value"] \
        .sum().reset_index()
    for key in swept:
        per_job[f"config.{key}"] = per_job[f"config.{key}"].astype(str)
    where = jobs.astype({k: str for k in swept}).rename(columns={k: f"config.{k}" for k in swept})
    where["where"] = [h if h == c else f"{h} ({c})" for h, c in zip(where["host"], where["cpu"])]
    merged = per_job.merge(where[[*(f"config.{k}" for k in swept), "algorithm", "where"]], how="left")
    merged["where"] = merged["where"].fillna("unknown")
    return (merged.groupby([*spec.block, "algorithm"], sort=True)
            .agg(jobs=("value", "size"), hours=("value", lambda v: v.sum() / 3600), mean_s=("value", "mean"),
                 hosts=("where", lambda w: "; ".join(sorted(set(w)))))
            .reset_index())


def jobs_markdown(timings: pd.DataFrame, jobs: pd.DataFrame, spec: ReportSpec) -> str:
    """:func:`jobs_time` as a markdown table, with the total job hours under it."""
    table = jobs_time(timings, jobs, spec)
    block = list(spec.block)
    lines = [f"| {' | '.join(block)} | algorithm | jobs | job time, mean (s) | job time, total (h) | host (CPU) |",
             "|" + "---|" * (len(block) + 5)]
    for row in table.itertuples(index=False):
        values = row._asdict()
        cells = [str(values[k]) for k in block]
        lines.append(f"| {' | '.join(cells)} | {row.algorithm} | {row.jobs} | {row.mean_s:.1f} | {row.hours:.2f} | "
                     f"{row.hosts} |")
    lines += ["", f"In all: {int(table['jobs'].sum())} jobs, {table['hours'].sum():.1f} job-hours."]
    return "\n".join(lines) + "\n"
