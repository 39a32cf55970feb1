"""Li & Lin (NIPS 2006) style scatter plots: one algorithm's test error against another's.

Each point is one benchmark (dataset, bins) at (mean of x, mean of y) over partitions, with ± 1
standard-error bars both ways; points below the diagonal y = x favour the y algorithm. The panels of
a figure share one scale (the same limits on both axes of every panel). With ``holm=True`` a point
is filled when the paired Wilcoxon test of y against x on its partitions is significant after Holm's
adjustment over the panel's benchmarks (``ordrank.reports.paired_wilcoxon``), hollow otherwise.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ordrank.reports import ALPHA, paired_wilcoxon, summary  # noqa: E402
from ordrank.results import atomic_path  # noqa: E402

PAIRS = [("SVORIM", "Reduction-SVM"), ("SVORIM", "Reduction-tree"),
         ("skordinal-ORBoost", "Reduction-boost")]
LABELS = {"mae": "test MAE", "zero_one": "test zero-one error"}
DPI = 150


def scatter_versus(table, x_algorithm, y_algorithm, metric="mae", ax=None, holm=False):
    """Draw y_algorithm's mean metric against x_algorithm's, one point per (dataset, bins).

    ``holm``: fill the points whose paired test (y against x) is significant after Holm's adjustment.
    """
    ax = plt.gca() if ax is None else ax
    label = LABELS.get(metric, metric)
    ax.set(xlabel=f"{x_algorithm} {label}", ylabel=f"{y_algorithm} {label}")
    means = summary(table, metric).dropna(subset=["mean"])
    missing = [a for a in (x_algorithm, y_algorithm) if a not in set(means["algorithm"])]
    if missing:
        ax.text(0.5, 0.5, "no results for\n" + "\n".join(missing), transform=ax.transAxes,
                ha="center", va="center", color="0.4")
        ax.set(xticks=[], yticks=[])
        return ax
    keys = ["dataset", "bins"]
    x = means[means["algorithm"] == x_algorithm].set_index(keys)[["mean", "sem"]].add_suffix("_x")
    y = means[means["algorithm"] == y_algorithm].set_index(keys)[["mean", "sem"]].add_suffix("_y")
    both = x.join(y, how="inner").sort_index().fillna({"sem_x": 0.0, "sem_y": 0.0})
    several_bins = both.index.get_level_values("bins").nunique() > 1
    ax.errorbar(both["mean_x"], both["mean_y"], xerr=both["sem_x"], yerr=both["sem_y"], fmt="o",
                ms=4, color="tab:blue", ecolor="0.5", elinewidth=0.8, capsize=2,
                **({"mfc": "white", "zorder": 2} if holm else {}))
    if holm:
        _fill_significant(table, x_algorithm, y_algorithm, metric, both, ax)
    for (dataset, bins), point in both.iterrows():
        name = f"{dataset} ({bins})" if several_bins else str(dataset)
        ax.annotate(name, (point["mean_x"], point["mean_y"]), xytext=(4, 3),
                    textcoords="offset points", fontsize="x-small")
    values = [*both["mean_x"] - both["sem_x"], *both["mean_y"] - both["sem_y"],
              *both["mean_x"] + both["sem_x"], *both["mean_y"] + both["sem_y"]]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    pad = 0.05 * (high - low or 1.0)
    low, high = max(low - pad, 0.0), high + pad
    ax.plot([low, high], [low, high], color="0.3", lw=0.8, ls="--", zorder=0, label="_diagonal")
    ax.set(xlim=(low, high), ylim=(low, high), aspect="equal")
    ax.text(0.97, 0.03, f"below the diagonal: {y_algorithm} better\nbars: ± 1 s.e. over partitions",
            transform=ax.transAxes,
            ha="right", va="bottom", fontsize="x-small", color="0.4")
    ax.grid(alpha=0.3)
    return ax


def _fill_significant(table, x_algorithm, y_algorithm, metric, both, ax):
    """Fill the points of ``both`` where y differs from x after Holm (α = ALPHA); add a legend."""
    keys = ["dataset", "bins"]
    tests = paired_wilcoxon(table[table["algorithm"].isin([x_algorithm, y_algorithm])], metric,
                            reference=x_algorithm)
    tests = tests[tests["algorithm"] == y_algorithm].set_index(keys)
    significant = tests.index[(tests["pvalue_holm"] < ALPHA) & tests["sign"].isin(["better", "worse"])]
    shown = both.loc[both.index.intersection(significant)]
    ax.plot(shown["mean_x"], shown["mean_y"], "o", ms=4, color="tab:blue", zorder=3,
            label=f"differs, Holm-adjusted p < {ALPHA}")
    ax.plot([], [], "o", ms=4, color="tab:blue", mfc="white", label="no significant difference")
    ax.legend(loc="upper left", fontsize="x-small", frameon=False)


def benchmark_scatter_figure(table, pairs, path, metric="mae", dpi=DPI, holm=False):
    """One panel per (x, y) pair (default PAIRS) in a row; save a PNG atomically and return its path.

    ``holm``: fill the points significant after Holm's adjustment (see :func:`scatter_versus`)."""
    pairs = PAIRS if pairs is None else list(pairs)
    fig, axes = plt.subplots(1, len(pairs), figsize=(4.2 * len(pairs), 4.2), squeeze=False)
    for ax, (x_algorithm, y_algorithm) in zip(axes[0], pairs):
        scatter_versus(table, x_algorithm, y_algorithm, metric, ax, holm=holm)
    diagonals = {ax: line for ax in axes[0] for line in ax.lines if line.get_label() == "_diagonal"}
    if diagonals:  # panels with points (not "no results") take the union of their ranges
        low = min(ax.get_xlim()[0] for ax in diagonals)
        high = max(ax.get_xlim()[1] for ax in diagonals)
        for ax, line in diagonals.items():
            line.set_data([low, high], [low, high])
            ax.set(xlim=(low, high), ylim=(low, high))
    fig.tight_layout()
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": None})
    finally:
        plt.close(fig)
    return Path(path)
