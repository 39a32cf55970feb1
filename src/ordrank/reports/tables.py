"""The batch benchmark's report files and tables: markdown tables of "mean ± 1 s.e." per benchmark,
training times, ``write_report`` and the README's benchmark table.

What a report shows -- block keys, Wilcoxon reference, column order, the README table's
rows and columns -- is the ``report:`` section of the experiment's config (:class:`ReportSpec`);
nothing here names a study's algorithms.
Every function is a pure function of the table; ``write_report`` writes the files, sorted and with
fixed decimals, so that the same table always gives the same bytes.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ordrank.reports.jobs import jobs_markdown
from ordrank.reports.spec import ReportSpec, spec_for as _spec
from ordrank.reports.statistics import (ALPHA, _rankings, friedman_line, paired_markdown, paired_wilcoxon,
                                        rank_statistics_markdown, rank_table, statistics_notes)
from ordrank.reports.summaries import column_order, mean_sem, summary
from ordrank.reports.yardsticks import yardstick_markdown, yardstick_tests, yardstick_time_markdown, yardstick_times
from ordrank.results.files import atomic_path, write_table

TITLES = {"mae": "Test mean absolute error", "zero_one": "Test zero-one error"}


def markdown_table(table: pd.DataFrame, metric: str, reference: str | None = None, order=None,
                   decimals: int = 3, spec: ReportSpec | None = None) -> str:
    """Markdown table: a row per benchmark (block value), a column per algorithm, cells "mean ± 1 s.e.".

    The lowest mean of a row is **bold**; † marks p < 0.05 in the Wilcoxon test against
    ``reference``; "(k failed)" counts failed partitions. Below: average ranks and Friedman's test.
    Columns follow ``order`` (default: the spec's methods, then its external learners).
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


def time_table(table: pd.DataFrame, by=("dataset",)) -> pd.DataFrame:
    """Mean seconds per benchmark (the columns ``by``, e.g. data set and bins) and algorithm, over
    partitions: refit and model selection.

    ``table`` is the timings table (:func:`ordrank.results.read_timings`) or any table holding
    ``fit_seconds`` / ``cv_seconds`` rows (a results table written before they had their own)."""
    by = [k for k in by if k in table.columns]
    rows = table[table["metric"].isin(["fit_seconds", "cv_seconds"])]
    out = rows.groupby([*by, "algorithm", "metric"], sort=True)["value"].mean().unstack("metric")
    out = out.reindex(columns=["fit_seconds", "cv_seconds"]).astype(float).reset_index()
    out.columns.name = None
    return out.sort_values([*by, "algorithm"], kind="stable", ignore_index=True)


def time_markdown(times: pd.DataFrame, order=(), decimals: int = 3) -> str:
    """Markdown table of ``time_table``: a row per benchmark, cells "fit / cv" in seconds."""
    keys = [c for c in times.columns if c not in ("algorithm", "fit_seconds", "cv_seconds")]
    columns = column_order(times["algorithm"].unique(), order)
    cells = {(*k, a): (f, c) for *k, a, f, c in times[[*keys, "algorithm", "fit_seconds",
                                                       "cv_seconds"]].itertuples(index=False)}
    lines = ["| " + " | ".join(keys) + " | " + " | ".join(columns) + " |",
             "|" + "---|" * len(keys) + "---:|" * len(columns)]
    for block in times[keys].drop_duplicates().itertuples(index=False):
        row = [" / ".join(f"{v:.{decimals}f}" if not np.isnan(v) else "–" for v in cells[(*block, a)])
               if (*block, a) in cells else "–" for a in columns]
        lines.append("| " + " | ".join(map(str, block)) + " | " + " | ".join(row) + " |")
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
                 statistics: bool = False, timings: pd.DataFrame | None = None,
                 jobs: pd.DataFrame | None = None) -> Path:
    """Write report.md and the summary, Wilcoxon, rank and time CSVs under ``out_dir``.

    The training-time section comes from ``timings`` (the timings table beside the results
    table, :func:`ordrank.results.read_timings`), or from ``table``'s own seconds rows if None;
    ``jobs`` (the jobs table, :func:`ordrank.results.files.read_jobs`) adds where each job ran.

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
                notes = statistics_notes(table, metric, spec).rstrip("\n")
                parts += ["", notes] if notes else []
            if paired:
                parts += ["", f"### Paired tests against {spec.reference}", "",
                          paired_markdown(table, metric, order, spec=spec).rstrip("\n")]
            if spec.yardsticks:
                parts += ["", "### Against the yardsticks", "",
                          yardstick_markdown(table, metric, spec).rstrip("\n")]
        write_table(fixed(summary(table, metric, spec)), out_dir / f"summary_{metric}.csv")
        write_table(fixed(paired_wilcoxon(table, metric, spec=spec)), out_dir / f"wilcoxon_{metric}.csv")
        write_table(fixed(rank_table(table, metric, spec)), out_dir / f"ranks_{metric}.csv")
        if spec.yardsticks:
            write_table(fixed(yardstick_tests(table, metric, spec)), out_dir / f"yardsticks_{metric}.csv")
    timed = table if timings is None else timings
    times = time_table(timed, by=spec.block)
    parts += ["", "## Training time (seconds)", "",
              "Mean over partitions: refit on the whole training part / cross-validated "
              "model selection.", "", time_markdown(times, order).rstrip("\n")]
    write_table(fixed(times), out_dir / "times.csv")
    if spec.yardsticks:
        text = yardstick_time_markdown(timed, spec)
        if text:
            parts += ["", "### The yardsticks' job time", "", text.rstrip("\n")]
        write_table(fixed(yardstick_times(timed, spec)), out_dir / "yardsticks_times.csv")
    if jobs is not None:
        parts += ["", "### Where the jobs ran", "", jobs_markdown(timed, jobs, spec).rstrip("\n")]
    return write_text("\n".join(parts) + "\n", out_dir / "report.md")


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
            text = "failed" if np.isnan(cell["mean"]) else mean_sem(cell["mean"], cell["sem"], decimals,
                                                                    bold=cell["mean"] == best)
            row.append(text + (f" ({int(cell['failed'])} failed)" if cell["failed"] else ""))
        lines.append(f"| {dataset} | " + " | ".join(row) + " |")
    n = rows.loc[rows["metric"] == metric, spec.partition].nunique()
    subset = f" ({spec.readme_subset})" if spec.readme_subset else ""
    return ("\n".join(lines) + f"\n\nTest {LABELS_SHORT.get(metric, metric)}, mean ± 1 standard error "
            f"over the {n} partitions{subset}; bold: lowest of the row among these columns.\n")


LABELS_SHORT = {"mae": "MAE", "zero_one": "zero-one error"}
