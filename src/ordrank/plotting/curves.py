"""Learning curves: a metric against the step, mean ± 1 standard error over seeds, one line per algorithm.

Every figure of the project draws ± 1 standard error (s/√n over seeds, partitions or targets).
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from ordrank.results.tables import summarize

STYLE = {"PRank": "tab:red", "WH": "tab:blue", "MCP": "tab:green", "Predtron": "tab:purple",
         "Predtron-L2": "tab:purple", "Predtron-L1": "tab:orange"}
DASHED = {"Predtron-L2", "Predtron-L1"}  # the learners added beside a paper's own, told apart by line


LEGEND_TITLE = "mean ± 1 s.e."


def plot_curves(ax, table, metric="time_avg_rank_loss", title=None, unit="seeds", legend=True):
    """Draw one panel from a tidy table (all algorithms of one dataset); ``unit`` names a seed;
    ``legend=False`` leaves the legend to the caller (one for a whole figure)."""
    rows = table[table.metric == metric]
    if rows.empty:
        raise ValueError(f"table has no rows with metric {metric!r}")
    summary = summarize(rows)
    for name, curve in summary.groupby("algorithm", sort=True):
        color = STYLE.get(name)
        ax.plot(curve.step, curve["mean"], label=name, color=color, lw=1.5,
                ls="--" if name in DASHED else "-")
        sem = curve["sem"].fillna(0)
        ax.fill_between(curve.step, curve["mean"] - sem, curve["mean"] + sem,
                        color=color, alpha=0.25, lw=0)
    n = int(summary["n"].max())
    ax.set(xlabel="round", ylabel="time-averaged rank loss")
    ax.set_title(f"{title or rows.dataset.iloc[0]}\n(mean over {n} {unit})", fontsize="medium")
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(frameon=False, title=LEGEND_TITLE, title_fontsize="small")
    return ax


def online_figure(panels, metric="time_avg_rank_loss"):
    """One row of panels sharing one y-scale; ``panels`` is a list of (title, table, unit).

    Bands are ± 1 standard error. The y-axis starts at 0 (a loss) and every panel shows the same range,
    so heights compare across panels; only the first panel carries the y-axis title. One legend for
    the whole figure, below the panels (inside a panel it covered the curves of the rating data).
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.2), squeeze=False,
                             sharey=True)
    for ax, (title, table, unit) in zip(axes[0], panels):
        plot_curves(ax, table, metric, title, unit, legend=False)
    axes[0, 0].set_ylim(bottom=0)
    for ax in axes[0, 1:]:
        ax.set_ylabel("")
        ax.tick_params(labelleft=True)
    labels = {}
    for ax in axes[0]:  # every algorithm once, in the panels' (sorted) order
        for handle, label in zip(*ax.get_legend_handles_labels()):
            labels.setdefault(label, handle)
    columns = len(labels) if len(panels) > 1 else min(len(labels), 3)
    rows = -(-len(labels) // max(columns, 1))
    fig.legend(list(labels.values()), list(labels), loc="lower center", ncol=max(columns, 1),
               frameon=False, title=LEGEND_TITLE, title_fontsize="small")
    fig.tight_layout(rect=(0, 0.045 + 0.055 * rows, 1, 1))  # room for the legend's rows
    return fig
