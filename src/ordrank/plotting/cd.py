"""Demšar's (JMLR 2006, Figure 1) critical-difference diagram, drawn from a results table only.

One axis of average ranks (1 = best, on the left) over the benchmarks; each algorithm hangs from its
average rank to its name (the better half left, the others right); a thick bar joins each maximal
group of algorithms whose average ranks differ by less than Nemenyi's critical difference CD (not
significantly different at α); a segment of length CD is drawn above the axis. The ranks, Friedman's
and Iman–Davenport's tests and CD are those of :func:`ordrank.reports.average_ranks`.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from ordrank.reports.paired_tests import cd_groups
from ordrank.reports.statistics import ALPHA, average_ranks
from ordrank.results.files import atomic_path

LABELS = {"mae": "test MAE", "zero_one": "test zero-one error"}
DPI = 150


def cd_diagram(ranks: dict, cd: float, ax=None, title: str = ""):
    """Draw the diagram of ``ranks`` ({algorithm: average rank}) with critical difference ``cd``."""
    ax = plt.gca() if ax is None else ax
    if not ranks:
        ax.text(0.5, 0.5, "no ranks (Friedman's test not applicable)", transform=ax.transAxes,
                ha="center", va="center", color="0.4")
        ax.set_axis_off()
        return ax
    names = sorted(ranks, key=lambda a: (ranks[a], a))
    k = len(names)
    groups = cd_groups(ranks, cd) if np.isfinite(cd) else []
    half = (k + 1) // 2
    low, high = 1, max(k, int(np.ceil(max(ranks.values()))))
    ax.set_xlim(low - 0.5 - 0.25 * k, high + 0.5 + 0.25 * k)
    ax.set_ylim(-_depth(ranks, cd), 1.7)
    ax.set_axis_off()
    ax.plot([low, high], [0, 0], color="k", lw=1)  # the rank axis
    for tick in range(low, high + 1):
        ax.plot([tick, tick], [0, 0.12], color="k", lw=1)
        ax.text(tick, 0.22, str(tick), ha="center", va="bottom", fontsize="small")
    if np.isfinite(cd):
        ax.plot([low, low + cd], [1.1, 1.1], color="k", lw=1.5)
        for end in (low, low + cd):
            ax.plot([end, end], [1.0, 1.2], color="k", lw=1)
        ax.text(low + cd / 2, 1.25, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize="small")
    bars = -0.35 - 0.45 * np.arange(len(groups))
    for y, group in zip(bars, groups):
        ax.plot([ranks[group[0]] - 0.05, ranks[group[-1]] + 0.05], [y, y], color="tab:red", lw=3,
                solid_capstyle="round")
    first = (bars[-1] if len(groups) else 0.0) - 0.5
    for i, name in enumerate(names):
        left = i < half
        row = i if left else k - 1 - i  # the outermost names lowest
        y = first - 0.45 * row
        x_end = ax.get_xlim()[0] + 0.2 if left else ax.get_xlim()[1] - 0.2
        ax.plot([ranks[name], ranks[name], x_end], [0, y, y], color="0.3", lw=0.8)
        ax.text(x_end + (0.05 if left else -0.05), y + 0.06, f"{name} ({ranks[name]:.2f})",
                ha="left" if left else "right", va="bottom", fontsize="small")
    if title:
        ax.set_title(title, fontsize="medium")
    return ax


def _depth(ranks: dict, cd: float) -> float:
    """How far below the axis a diagram reaches (axis units): its group bars, then half the names."""
    groups = cd_groups(ranks, cd) if ranks and np.isfinite(cd) else []
    return 0.6 + 0.45 * len(groups) + 0.45 * ((len(ranks) + 1) // 2)


def benchmark_cd_figure(table, path, among=None, metrics=("mae", "zero_one"), spec=None,
                        label: str = "") -> Path:
    """A panel per metric: the diagram of ``among``'s average ranks (default: every algorithm)."""
    panels = []
    for metric in metrics:
        _, friedman = average_ranks(table, metric, spec, among=among)
        panels.append((metric, friedman))
    heights = [_depth(f["ranks"], f["cd"]) + 2.6 for _, f in panels]  # axis units, title included
    fig, axes = plt.subplots(len(panels), 1, figsize=(7.5, 0.45 * sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, (metric, f) in zip(axes[:, 0], panels):
        title = f"{LABELS.get(metric, metric)}: average ranks{' ' + label if label else ''}"
        if f["ranks"]:
            title += (f" over {f['n_datasets']} benchmarks\nFriedman p = {f['pvalue']:.2g}, "
                      f"Iman–Davenport p = {f['F_pvalue']:.2g}; Nemenyi α = {ALPHA}")
        cd_diagram(f["ranks"], f["cd"], ax, title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return path
