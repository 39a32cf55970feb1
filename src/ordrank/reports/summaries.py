"""Per-benchmark summaries of the tidy results table, the first step of every report.

The table is long: one row per (dataset, bins, algorithm, split, metric) with its ``value``, the
chosen hyper-parameters ``params`` and a ``status`` ("ok", a solver status, or "failed: ...").
A failed row has value NaN: it is counted as failed and left out of every mean and test.
Also the helpers the markdown tables share: the column order and the "mean ± s.e." cell.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ordrank.reports.spec import ReportSpec, spec_for as _spec


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


def column_order(algorithms, order=()) -> list[str]:
    """``order`` restricted to ``algorithms``, then the others alphabetically."""
    order = list(order or ())
    present = set(algorithms)
    return [a for a in order if a in present] + sorted(present - set(order))


def mean_sem(mean: float, sem: float, decimals: int, bold: bool = False) -> str:
    """``mean ± sem`` with ``decimals`` decimals (the mean in bold when ``bold``; no ± for a NaN sem)."""
    text = f"{mean:.{decimals}f}"
    text = f"**{text}**" if bold else text
    return text + ("" if np.isnan(sem) else f" ± {sem:.{decimals}f}")
