"""Draw the Predtron paper's Figure 1 (a, b, c) from the committed tables in results/ into figures/.

    python experiments/plot_figure1.py       # → figures/figure1_predtron.png

Reads only results tables; never trains anything. Each panel is the mean test NDCG loss over the
repetitions with a band of ± 1 standard error; (a) and (b) on a log scale, as in the paper. A curve
is an (algorithm, passes_mode): the Predtron's interpretations "until_separated" (solid) and "one" (a single
pass, dashed, same colour); batch rankers ("batch", panel (a): RankSVM, RankNet, LambdaMART, least
squares) dotted, in their own colours and markers. ``markdown`` gives the README's generated tables
from the same tables.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from ordrank.reports import config_value, mean_sem
from ordrank.results import read_table, summarize

METRIC = "test_ndcg_loss"
F_LABELS = {"inverse": "f(i) = 1/i", "power_1.1": "f(i) = −i^1.1", "power_2": "f(i) = −i²"}  # tables
F_MATH = {"inverse": "$f(i) = 1/i$", "power_1.1": "$f(i) = -i^{1.1}$", "power_2": "$f(i) = -i^2$"}  # figure
COLORS = {"inverse": "tab:red", "power_1.1": "tab:blue", "power_2": "tab:green",
          "l1": "tab:purple", "l2": "tab:orange", "RankSVM": "black", "RankNet": "tab:brown",
          "LambdaMART": "tab:olive", "LeastSquares": "tab:gray"}
MARKERS = {"RankSVM": "s", "RankNet": "^", "LambdaMART": "D", "LeastSquares": "v"}
MODES = ("until_separated", "one", "batch")  # passes_mode, in the order of the columns
LINES = {"until_separated": "-", "one": "--", "batch": ":"}
# panel: (table under results/, the grid column, x label, log y, title with the fixed sizes)
PANELS = {
    "a": ("predtron_subset_n/subset_ranking.parquet", "n_train", "training queries n", True,
          "(a) m = {m}, p = {p}"),
    "b": ("predtron_subset_m/subset_ranking.parquet", "m", "documents per query m", True,
          "(b) n = {n_train}, p = {p}"),
    "c": ("predtron_l1_vs_l2/subset_ranking_sparse.parquet", "p", "features p", False,
          "(c) L1 vs L2: s = {s}, n = {n_train}, m = {m}"),
}
FIGURE = "figure1_predtron.png"


def describe(table, algorithm: str, labels=F_LABELS, mode: str = "until_separated") -> tuple[str, str]:
    """(label, style key) of an algorithm and passes_mode, from its configuration columns: f for the
    Predtron's ℓ2 curves of panels (a, b), the margin for panel (c), the name for a batch ranker."""
    if mode == "batch":
        return algorithm, algorithm
    f, margin = (config_value(table, f"config.algorithms.{algorithm}.{key}") for key in ("f", "margin"))
    suffix = ", one pass" if mode == "one" else ""
    if table["experiment"].iloc[0] == "predtron_l1_vs_l2":
        return f"Predtron-{str(margin).upper()}{suffix}", str(margin)
    return labels.get(f, str(f)) + suffix, str(f)


def summary(table, by: str):
    """Mean, standard error and count of the test NDCG loss per (algorithm, passes_mode, grid value),
    in the order of MODES, then of the algorithms."""
    rows = table[table["metric"] == METRIC]
    if rows.empty:
        raise ValueError(f"table has no rows with metric {METRIC!r}")
    unknown = set(rows["passes_mode"]) - set(MODES)
    if unknown:
        raise ValueError(f"table has passes_mode values {sorted(unknown)}; known: {list(MODES)}")
    stats = summarize(rows, by=("algorithm", "passes_mode", by))
    order = stats["passes_mode"].map(MODES.index)
    return stats.assign(_o=order).sort_values(["_o", "algorithm", by], kind="stable").drop(columns="_o") \
        .reset_index(drop=True)


def fixed_sizes(table) -> dict:
    """The sizes held fixed in a table (one value each), for titles."""
    sizes = {key: int(table[key].iloc[0]) for key in ("n_train", "m", "p") if table[key].nunique() == 1}
    column = "config.dataset.n_nonzero"
    if column in table:
        sizes["s"] = int(table[column].iloc[0])
    return sizes


def draw_panel(ax, table, by, xlabel, log, title):
    stats = summary(table, by)
    for (algorithm, mode), curve in stats.groupby(["algorithm", "passes_mode"], sort=False):
        label, key = describe(table, algorithm, F_MATH, mode)
        mean, sem = curve["mean"].to_numpy(), curve["sem"].fillna(0).to_numpy()
        lower = mean - sem
        if log:  # a band reaching 0 is cut at a tenth of the mean on a log axis
            lower = np.maximum(lower, mean / 10)
        ax.plot(curve[by], mean, ls=LINES[mode], marker=MARKERS.get(key, "o"), ms=3, lw=1.5,
                color=COLORS.get(key), label=label)
        ax.fill_between(curve[by], lower, mean + sem, color=COLORS.get(key), alpha=0.12 if mode != "until_separated"
                        else 0.25, lw=0)
    n = int(stats["n"].max())
    ax.set(xlabel=xlabel, ylabel="test NDCG loss (1 − NDCG)")
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_title(f"{title.format(**fixed_sizes(table))}\n(mean over {n} repetitions)", fontsize="medium")
    ax.grid(alpha=0.3, which="both" if log else "major")
    ax.legend(frameon=False, title="mean ± 1 s.e.", title_fontsize="small", fontsize="small", ncol=2,
              loc="upper center", bbox_to_anchor=(0.5, -0.16))  # below the panel: the curves stay visible


def figure(tables: dict):
    """One row of panels; ``tables`` maps panel letters (a, b, c) to their tables."""
    fig, axes = plt.subplots(1, len(tables), figsize=(5.4 * len(tables), 5.6), squeeze=False)
    for ax, (letter, table) in zip(axes[0], tables.items()):
        _, by, xlabel, log, title = PANELS[letter]
        draw_panel(ax, table, by, xlabel, log, title)
    fig.suptitle("Predtron, subset ranking (Jain, Natarajan & Tewari 2015, Figure 1)", fontsize="medium")
    fig.tight_layout()
    return fig


SCALES = {"a": 1e3, "b": 1e3, "c": 1.0}  # README tables: the loss times this, with these decimals
DECIMALS = {"a": 2, "b": 2, "c": 3}


def markdown(table, letter: str) -> str:
    """The README table of panel ``letter``: mean ± 1 s.e. of the test NDCG loss (times SCALES),
    a row per grid value, a column per (algorithm, passes_mode); bold: lowest of the row."""
    by, scale, decimals = PANELS[letter][1], SCALES[letter], DECIMALS[letter]
    stats = summary(table, by)
    stats = stats.assign(column=stats["algorithm"] + "|" + stats["passes_mode"])
    columns = list(dict.fromkeys(stats["column"]))
    labels = {c: describe(table, c.split("|")[0], mode=c.split("|")[1])[0] for c in columns}
    mean = stats.pivot(index=by, columns="column", values="mean")[columns] * scale
    sem = stats.pivot(index=by, columns="column", values="sem")[columns] * scale
    names = {"n_train": "n", "m": "m", "p": "p"}
    lines = [f"| {names[by]} | " + " | ".join(labels[a] for a in mean.columns) + " |",
             "|---|" + "---|" * len(mean.columns)]
    for value, row in mean.iterrows():
        best = row.idxmin()
        cells = [mean_sem(row[a], sem.loc[value, a], decimals, bold=a == best) for a in mean.columns]
        lines.append(f"| {value} | " + " | ".join(cells) + " |")
    unit = "" if scale == 1 else f" × {scale:g}"
    n = int(stats["n"].max())
    lines += ["", f"Test NDCG loss{unit}, mean ± 1 standard error over the {n} repetitions; "
              "bold: lowest of the row."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", default="results", type=Path)
    parser.add_argument("--figures", default="figures", type=Path)
    args = parser.parse_args(argv)
    paths = {letter: args.results / panel[0] for letter, panel in PANELS.items()}
    missing = [str(p) for p in paths.values() if not p.is_file()]
    if missing:
        print(f"skipping {FIGURE}: missing {', '.join(missing)}")
        return
    args.figures.mkdir(parents=True, exist_ok=True)
    fig = figure({letter: read_table(path) for letter, path in paths.items()})
    fig.savefig(args.figures / FIGURE, dpi=120, metadata={"Software": None})
    plt.close(fig)
    print(f"wrote {args.figures / FIGURE}")


if __name__ == "__main__":
    main()
