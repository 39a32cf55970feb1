"""The README's online-learning tables: each algorithm's loss at the last step, "mean ± 1 s.e."
over the seeds (or target users), from the online experiments' results tables (the generated
README tables: :mod:`ordrank.reports.readme`).
"""
from __future__ import annotations

import pandas as pd

from ordrank.reports.summaries import column_order, mean_sem


def final_losses(table: pd.DataFrame, metric: str = "time_avg_rank_loss", by=("algorithm",)) -> pd.DataFrame:
    """Per group of ``by`` (an algorithm; with a feature-scale sweep, an algorithm and a scale), the
    metric at the table's last step: mean, standard error s/√n and n seeds (or target users), and the step."""
    rows = table[table["metric"] == metric]
    if rows.empty:
        raise ValueError(f"table has no rows with metric {metric!r}")
    last = rows[rows["step"] == rows["step"].max()]
    out = last.groupby(list(by), sort=True)["value"].agg(mean="mean", sem="sem", n="count")
    out = out.reset_index()
    out["step"] = int(rows["step"].max())
    return out


def config_value(table: pd.DataFrame, column: str):
    """The one value of a ``config.*`` column, or None when the column is absent."""
    if column not in table.columns:
        return None
    values = table[column].unique()
    if len(values) != 1:
        raise ValueError(f"{column} takes {len(values)} values in one table: {sorted(map(str, values))}")
    return values[0]


def algorithm_label(table: pd.DataFrame, algorithm: str) -> str:
    """``algorithm``, with Widrow-Hoff's step size (and whether it is normalized) from the config."""
    eta = config_value(table, f"config.algorithms.{algorithm}.eta")
    if eta is None:
        return algorithm
    normalized = config_value(table, f"config.algorithms.{algorithm}.normalized") in (True, "true")
    return f"{algorithm} ({'normalized, ' if normalized else ''}η = {float(eta):g})"


def online_final_markdown(table: pd.DataFrame, unit: str = "sequences", decimals: int = 4) -> str:
    """Markdown: one row per algorithm (lowest final loss first), "mean ± 1 s.e." over the seeds."""
    final = final_losses(table).sort_values(["mean", "algorithm"], kind="stable")
    step = int(final["step"].iloc[0])
    lines = [f"| algorithm | loss at t = {step} |", "|---|---|"]
    lines += [f"| {algorithm_label(table, r.algorithm)} | {mean_sem(r.mean, r.sem, decimals)} |"
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
        cells = [mean_sem(final.loc[a, "mean"], final.loc[a, "sem"], decimals,
                          bold=final.loc[a, "mean"] == best) for a in algorithms]
        targets = int(final["n"].max())
        lines.append(f"| {label} | {targets:,} (t = {int(final['step'].iloc[0])}) | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\nMean ± 1 standard error over the target users; bold: lowest of the row.\n"
