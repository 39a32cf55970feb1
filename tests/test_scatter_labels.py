"""The benchmark scatter: labels never overlap one another or a point, panels are titled, one row
of panels per bin count."""
import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text

from ordrank.plotting import scatter


def _boxes(ax):
    renderer = ax.figure.canvas.get_renderer()
    for t in ax.texts:
        if hasattr(t, "update_positions"):
            t.update_positions(renderer)
    return [Text.get_window_extent(t, renderer).extents for t in ax.texts  # the text, not its leader
            if t.get_text() and not t.get_text().startswith("below the diagonal")]


def _overlap(a, b):
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_crowded_labels_do_not_overlap():
    """Nine points within 0.02 of each other (as housing / computer2 / machine are) on a 0..2
    scale: every label is drawn, no two label boxes share a pixel, none covers a point."""
    fig, ax = plt.subplots(figsize=(4.2, 4.2))
    rng = np.random.default_rng(0)
    xs, ys = 1 + rng.uniform(0, 0.02, 9), 1 + rng.uniform(0, 0.02, 9)
    ax.plot(xs, ys, "o", ms=4)
    ax.set(xlim=(0, 2), ylim=(0, 2), aspect="equal")
    names = [f"dataset{i}" for i in range(9)]
    placed = scatter.label_points(ax, xs, ys, names)
    assert sorted(a.get_text() for a in placed) == names
    boxes = _boxes(ax)
    assert not any(_overlap(a, b) for a, b in itertools.combinations(boxes, 2))
    points = ax.transData.transform(np.column_stack([xs, ys]))
    for (px, py), box in itertools.product(points, boxes):
        assert not (box[0] < px < box[2] and box[1] < py < box[3])
    plt.close("all")


def _table():
    rows = []
    for bins, dataset, split, (algorithm, shift) in itertools.product(
            (5, 10), ("housing", "computer2", "machine", "pyrim"), range(4),
            (("SVORIM", 0.0), ("Reduction-SVM", 0.01))):
        value = 1.0 + 0.005 * len(dataset) + shift + 0.01 * split + (0.5 if bins == 10 else 0.0)
        rows.append({"experiment": "svor_benchmark", "dataset": dataset, "algorithm": algorithm, "bins": bins,
                     "split": split, "metric": "mae", "value": value,
                     "params": "{}", "status": "ok", "config.seed": 0})
    return pd.DataFrame(rows)


def test_one_titled_row_per_bin_count_and_deterministic(tmp_path, monkeypatch):
    captured = []
    monkeypatch.setattr(scatter.plt, "close", lambda fig=None: captured.append(fig))
    pairs = [("SVORIM", "Reduction-SVM")]
    one = scatter.benchmark_scatter_figure(_table(), pairs, tmp_path / "one.png")
    two = scatter.benchmark_scatter_figure(_table(), pairs, tmp_path / "two.png")
    assert one.read_bytes() == two.read_bytes()
    fig = captured[0]
    assert [ax.get_title() for ax in fig.axes] == ["Reduction-SVM vs SVORIM, 5 bins",
                                                   "Reduction-SVM vs SVORIM, 10 bins"]
    for ax in fig.axes:  # each panel names its bin count's four data sets once, without overlap
        labels = sorted(t.get_text() for t in ax.texts if not t.get_text().startswith("below"))
        assert labels == ["computer2", "housing", "machine", "pyrim"]
        boxes = _boxes(ax)
        assert not any(_overlap(a, b) for a, b in itertools.combinations(boxes, 2))
    assert len({(ax.get_xlim(), ax.get_ylim()) for ax in fig.axes}) == 1  # one scale
    monkeypatch.undo()  # plt.close is real again
    for figure in captured:
        plt.close(figure)


@pytest.mark.parametrize("n", [0, 1])
def test_few_points(n):
    fig, ax = plt.subplots()
    ax.set(xlim=(0, 1), ylim=(0, 1))
    assert len(scatter.label_points(ax, np.full(n, 0.5), np.full(n, 0.5), ["a"] * n)) == n
    plt.close(fig)
