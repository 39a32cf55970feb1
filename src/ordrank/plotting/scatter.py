"""Li & Lin (NIPS 2006) style scatter plots: one algorithm's test error against another's.

Each point is one benchmark (dataset, bins) at (mean of x, mean of y) over partitions, with ± 1
standard-error bars both ways; points below the diagonal y = x favour the y algorithm. The panels of
a figure share one scale (the same limits on both axes of every panel). With ``holm=True`` a point
is filled when the paired Wilcoxon test of y against x on its partitions is significant after Holm's
adjustment over the panel's benchmarks (``ordrank.reports.paired_wilcoxon``), hollow otherwise.
A figure has a row of panels per bin count (one per (x, y) pair) and each panel a title. Labels
are placed by a deterministic greedy search (:func:`label_points`): each point in turn takes the
first of a fixed list of offsets, nearest first, whose label box overlaps no label placed before,
no point, no legend or note and stays inside the axes; a label moved away from its point gets a
thin leader line.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from ordrank.reports.statistics import ALPHA, paired_wilcoxon
from ordrank.reports.summaries import summary
from ordrank.results.files import atomic_path

PAIRS = [("SVORIM", "Reduction-SVM"), ("SVORIM", "Reduction-tree"),
         ("skordinal-ORBoost", "Reduction-boost")]
LABELS = {"mae": "test MAE", "zero_one": "test zero-one error"}
DPI = 150


def scatter_versus(table, x_algorithm, y_algorithm, metric="mae", ax=None, holm=False, label=True):
    """Draw y_algorithm's mean metric against x_algorithm's, one point per (dataset, bins).

    ``holm``: fill the points whose paired test (y against x) is significant after Holm's adjustment.
    ``label``: name the points (:func:`label_points`; do it last, once the limits are final).
    """
    ax = plt.gca() if ax is None else ax
    unit = LABELS.get(metric, metric)
    ax.set(xlabel=f"{x_algorithm} {unit}", ylabel=f"{y_algorithm} {unit}")
    means = summary(table, metric).dropna(subset=["mean"])
    missing = [a for a in (x_algorithm, y_algorithm) if a not in set(means["algorithm"])]
    if missing:
        ax.text(0.5, 0.5, "no results for\n" + "\n".join(missing), transform=ax.transAxes,
                ha="center", va="center", color="0.4")
        ax.set(xticks=[], yticks=[])
        return ax
    both = _points(means, x_algorithm, y_algorithm)
    several_bins = both.index.get_level_values("bins").nunique() > 1
    ax.errorbar(both["mean_x"], both["mean_y"], xerr=both["sem_x"], yerr=both["sem_y"], fmt="o",
                ms=4, color="tab:blue", ecolor="0.5", elinewidth=0.8, capsize=2,
                **({"mfc": "white", "zorder": 2} if holm else {}))
    if holm:
        _fill_significant(table, x_algorithm, y_algorithm, metric, both, ax)
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
    if label:
        names = [f"{d} ({b})" if several_bins else str(d) for d, b in both.index]
        label_points(ax, both["mean_x"].to_numpy(), both["mean_y"].to_numpy(), names)
    return ax


def _points(means, x_algorithm, y_algorithm):
    """(dataset, bins) → mean_x, sem_x, mean_y, sem_y of the benchmarks both algorithms ran."""
    keys = ["dataset", "bins"]
    x = means[means["algorithm"] == x_algorithm].set_index(keys)[["mean", "sem"]].add_suffix("_x")
    y = means[means["algorithm"] == y_algorithm].set_index(keys)[["mean", "sem"]].add_suffix("_y")
    return x.join(y, how="inner").sort_index().fillna({"sem_x": 0.0, "sem_y": 0.0})


# label offsets (points) tried in this order: nearest ring first; (dx, dy, ha, va)
_DIRECTIONS = [(1, 1, "left", "bottom"), (1, -1, "left", "top"), (-1, 1, "right", "bottom"),
               (-1, -1, "right", "top"), (1, 0, "left", "center"), (-1, 0, "right", "center"),
               (0, 1, "center", "bottom"), (0, -1, "center", "top")]
_RINGS = (4, 9, 15, 23, 33, 45, 60, 80)
_LEADER = 9  # from this offset on, a leader line joins label and point


def _overlap(a, b) -> float:
    """Area shared by two display-space boxes (x0, y0, x1, y1)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _crosses(p, q, r, s) -> bool:
    """Whether the segments p–q and r–s (display space) cross."""
    def side(a, b, c):
        return np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
    return side(p, q, r) * side(p, q, s) < 0 and side(r, s, p) * side(r, s, q) < 0


def label_points(ax, xs, ys, names, fontsize="x-small"):
    """Label each point (xs[i], ys[i]) with names[i] without overlap, deterministically.

    Points are labelled from left to right (ties: bottom to top); each takes the first offset of
    ``_RINGS`` × ``_DIRECTIONS`` whose label box (in display space, the axes' final limits and
    size assumed) stays inside the axes and overlaps no earlier label, no point's marker and no
    text or legend already in the axes and whose leader line (from the second ring on) crosses no
    earlier one; if none is free, the offset with the least overlap. Returns the annotations."""
    fig = ax.figure
    fig.canvas.draw()  # fixes the axes' position (aspect, layout) and the texts' sizes
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer).extents
    to_display = ax.transData.transform
    points = to_display(np.column_stack([xs, ys])) if len(xs) else np.empty((0, 2))
    pad = fig.dpi / 72  # one point of clearance around each label
    marker = 3 * fig.dpi / 72  # half a marker box (ms=4 is a 4-point diameter, + edge), pixels
    blocked = [(px - marker, py - marker, px + marker, py + marker) for px, py in points]
    blocked += [t.get_window_extent(renderer).extents for t in ax.texts if t.get_visible()]
    if ax.get_legend() is not None:
        blocked.append(ax.get_legend().get_window_extent(renderer).extents)
    placed, leaders = [], []
    for i in sorted(range(len(names)), key=lambda i: (xs[i], ys[i], names[i])):
        best = None
        for ring in _RINGS:
            for dx, dy, ha, va in _DIRECTIONS:
                offset = (dx * ring, dy * ring * (0.7 if dx else 1.0))
                note = ax.annotate(names[i], (xs[i], ys[i]), xytext=offset, textcoords="offset points",
                                   ha=ha, va=va, fontsize=fontsize)
                box = note.get_window_extent(renderer).extents + np.array([-pad, -pad, pad, pad])
                note.remove()
                outside = (max(0, frame[0] - box[0]) + max(0, box[2] - frame[2])
                           + max(0, frame[1] - box[1]) + max(0, box[3] - frame[3]))
                leader = (points[i], ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
                crossing = ring >= _LEADER and any(_crosses(*leader, *other) for other in leaders)
                cost = (sum(_overlap(box, other) for other in blocked) + 1e3 * outside
                        + 1e2 * crossing)
                if best is None or cost < best[0]:
                    best = (cost, ring, offset, ha, va, box, leader)
                if cost == 0:
                    break
            if best[0] == 0:
                break
        _, ring, offset, ha, va, box, leader = best
        arrow = {"arrowprops": {"arrowstyle": "-", "lw": 0.5, "color": "0.5", "shrinkA": 0,
                                "shrinkB": 3}} if ring >= _LEADER else {}
        placed.append(ax.annotate(names[i], (xs[i], ys[i]), xytext=offset, textcoords="offset points",
                                  ha=ha, va=va, fontsize=fontsize, **arrow))
        blocked.append(box)
        if ring >= _LEADER:
            leaders.append(leader)
    return placed


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
    """A row of panels per bin count, one panel per (x, y) pair (default: the PAIRS whose two
    algorithms are in the table, all of PAIRS if none is), each titled; save a PNG atomically and
    return its path.

    Every panel shares one scale. ``holm``: fill the points significant after Holm's adjustment
    over the panel's benchmarks (see :func:`scatter_versus`)."""
    if pairs is None:
        present = set(table["algorithm"]) if "algorithm" in table else set()
        pairs = [pair for pair in PAIRS if set(pair) <= present] or PAIRS
    pairs = list(pairs)
    bins = sorted(table["bins"].dropna().unique()) if "bins" in table and len(table) else [None]
    fig, axes = plt.subplots(len(bins), len(pairs), figsize=(4.2 * len(pairs), 4.5 * len(bins)),
                             squeeze=False)
    panels = []
    for row, count in zip(axes, bins):
        rows = table if count is None else table[table["bins"] == count]
        for ax, (x_algorithm, y_algorithm) in zip(row, pairs):
            scatter_versus(rows, x_algorithm, y_algorithm, metric, ax, holm=holm, label=False)
            ax.set_title(f"{y_algorithm} vs {x_algorithm}"
                         + ("" if count is None else f", {int(count)} bins"), fontsize="medium")
            panels.append((ax, rows, x_algorithm, y_algorithm))
    diagonals = {ax: line for ax in axes.flat for line in ax.lines if line.get_label() == "_diagonal"}
    if diagonals:  # panels with points (not "no results") take the union of their ranges
        low = min(ax.get_xlim()[0] for ax in diagonals)
        high = max(ax.get_xlim()[1] for ax in diagonals)
        pad = 0.03 * (high - low)  # a panel's own pad is of its own span: one point alone sat on the edge
        low, high = max(low - pad, 0.0), high + pad
        for ax, line in diagonals.items():
            line.set_data([low, high], [low, high])
            ax.set(xlim=(low, high), ylim=(low, high))
    fig.tight_layout()
    for ax, rows, x_algorithm, y_algorithm in panels:  # labels last: limits and layout are final
        means = summary(rows, metric).dropna(subset=["mean"])
        both = _points(means, x_algorithm, y_algorithm)
        if ax in diagonals and len(both):
            label_points(ax, both["mean_x"].to_numpy(), both["mean_y"].to_numpy(),
                         [str(d) for d, _ in both.index])
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": None})
    finally:
        plt.close(fig)
    return Path(path)
