"""A LETOR benchmark from its results table: the NDCG@k figure and the markdown tables.

    python experiments/plot_letor.py     # → figures/letor_ohsumed_ndcg.png, results/letor_ohsumed/report.md
    python experiments/plot_letor.py --results runs --table mine/results.parquet --figures figs --figure mine.png

Titles and captions name the table's own data set (its ``dataset`` column; LETOR 3.0 OHSUMED for
``letor_ohsumed``), and the published baselines stand beside LETOR 3.0 OHSUMED's table only.

Reads only results tables (and the published LETOR 3.0 baselines in ``docs/published/``, each number
with its source); never trains anything. The figure shows NDCG@k in LETOR's convention for k = 1..10,
mean over the test folds with a band of ± 1 standard error, one line per method. ``markdown`` gives
the README's table; ``published_markdown`` the published numbers beside ours.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ordrank.reports import mean_sem
from ordrank.results import atomic_path, read_table, summarize

REPO = Path(__file__).resolve().parents[1]
TABLE = "letor_ohsumed/letor_ohsumed.parquet"
PUBLISHED = REPO / "docs" / "published" / "letor3_ohsumed.csv"
FIGURE = "letor_ohsumed_ndcg.png"
OHSUMED = "letor_ohsumed"  # the table's dataset name of LETOR 3.0 OHSUMED (conf/dataset/letor_ohsumed.yaml)
COLUMNS = ["letor_ndcg@1", "letor_ndcg@3", "letor_ndcg@5", "letor_ndcg@10", "letor_p@1", "letor_p@3",
           "letor_p@5", "letor_p@10", "letor_map", "ndcg@10"]
HEADERS = {"letor_map": "MAP", "ndcg@10": "NDCG@10 (trec)"}


def header(metric: str) -> str:
    return HEADERS.get(metric, metric.removeprefix("letor_").upper().replace("NDCG", "NDCG"))


def convention(table: pd.DataFrame) -> str:
    """The LETOR evaluation script the table's metrics follow: "4.0" when it holds LETOR 4.0's
    ``letor4_*`` metrics (MQ2007 / MQ2008 folders), else "3.0"."""
    return "4.0" if table["metric"].astype(str).str.startswith("letor4_").any() else "3.0"


def fold_means(table: pd.DataFrame) -> pd.DataFrame:
    """Mean, s.e. and count over folds of every (algorithm, metric); failed rows are not averaged.
    LETOR 4.0's ``letor4_*`` metrics are shown under the columns of ``letor_*`` (captions say which)."""
    rows = table[table["value"].notna()]
    rows = rows.assign(metric=rows["metric"].astype(str).str.replace("letor4_", "letor_", regex=False))
    return summarize(rows, by=("algorithm", "metric"))


def order(stats: pd.DataFrame, metric: str = "letor_ndcg@10") -> list[str]:
    """Algorithms by decreasing mean of ``metric`` (then name)."""
    means = stats[stats["metric"] == metric].sort_values(["mean", "algorithm"], ascending=[False, True],
                                                         kind="stable")
    return list(means["algorithm"])


def title(table: pd.DataFrame) -> str:
    """The data set(s) of ``table`` as a caption names them."""
    names = sorted(map(str, table["dataset"].unique())) if "dataset" in table else []
    return "LETOR 3.0 OHSUMED" if names == [OHSUMED] else ", ".join(names) or "(no data set named)"


def figure(table: pd.DataFrame):
    stats = fold_means(table)
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    ks = np.arange(1, 11)
    names = order(stats)
    colors, styles = plt.get_cmap("tab10"), ["-", "--", ":"]
    for i, name in enumerate(names):
        rows = stats[stats["algorithm"] == name].set_index("metric")
        mean = np.array([rows.loc[f"letor_ndcg@{k}", "mean"] for k in ks])
        sem = np.nan_to_num(np.array([rows.loc[f"letor_ndcg@{k}", "sem"] for k in ks]))
        color, style = colors(i % 10), styles[i // 10 % 3]
        ax.plot(ks, mean, style, marker="os^"[i // 10 % 3], ms=3, lw=1.4, color=color, label=name)
        ax.fill_between(ks, mean - sem, mean + sem, color=color, alpha=0.07, lw=0)
    n = int(stats["n"].max())
    ax.set(xlabel="k", ylabel=f"NDCG@k (LETOR's Eval-Score-{convention(table)} convention)", xticks=ks)
    ax.set_title(f"{title(table)}, test folds (mean ± 1 s.e. over {n} folds)", fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    return fig


def markdown(table: pd.DataFrame, decimals: int = 4) -> str:
    """Our methods: mean ± 1 s.e. over the folds of each metric; bold: best of the column."""
    stats = fold_means(table)
    names = order(stats)
    cells = stats.set_index(["algorithm", "metric"])
    best = {m: stats[stats["metric"] == m]["mean"].max() for m in COLUMNS}
    lines = ["| method | " + " | ".join(header(m) for m in COLUMNS) + " |",
             "|---|" + "---|" * len(COLUMNS)]
    for name in names:
        row = []
        for metric in COLUMNS:
            if (name, metric) not in cells.index:
                row.append("–")
                continue
            mean, sem = cells.loc[(name, metric), ["mean", "sem"]]
            row.append(mean_sem(mean, sem, decimals, bold=np.isclose(mean, best[metric])))
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    n = int(stats["n"].max())
    failed = table[table["value"].isna()]
    where = "LETOR 3.0 OHSUMED (QueryLevelNorm)" if title(table) == "LETOR 3.0 OHSUMED" else title(table)
    lines += ["", f"Test folds of {where}, mean ± 1 standard error over the {n} "
              "folds; hyper-parameters chosen by MAP on each fold's validation queries. NDCG@k, P@k and "
              f"MAP in LETOR's convention (Eval-Score-{convention(table)}.pl); the last column NDCG@10 as trec_eval / "
              "ranx compute it (gain 2^rel − 1, discount 1/log2(1 + rank); a query without a relevant "
              "document scores 0). Bold: best of the column."]
    if len(failed):
        lines.append(f"Failed (not averaged): {sorted(failed['algorithm'].unique())}.")
    return "\n".join(lines) + "\n"


def published_table(path: Path = PUBLISHED) -> pd.DataFrame:
    """The published numbers: columns method, metric, value, source (one row per number)."""
    return pd.read_csv(path, comment="#")


def published_markdown(table: pd.DataFrame, published: pd.DataFrame, decimals: int = 4) -> str:
    """Published LETOR 3.0 baselines beside ours (ours: fold means), same metrics; '–' = not found."""
    stats = fold_means(table).set_index(["algorithm", "metric"])["mean"]
    metrics = [m for m in COLUMNS if m != "ndcg@10"]
    lines = ["| method | source | " + " | ".join(header(m) for m in metrics) + " |",
             "|---|---|" + "---|" * len(metrics)]
    for method, rows in published.groupby("method", sort=False):
        values = rows.set_index("metric")["value"]
        sources = ", ".join(sorted(rows["source"].unique()))
        cells = [f"{values[m]:.{decimals}f}" if m in values.index else "–" for m in metrics]
        lines.append(f"| {method} (published) | {sources} | " + " | ".join(cells) + " |")
    for name in order(fold_means(table)):
        cells = [f"{stats[(name, m)]:.{decimals}f}" if (name, m) in stats.index else "–" for m in metrics]
        lines.append(f"| {name} (ordrank) | this repository | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", default=REPO / "results", type=Path)
    parser.add_argument("--figures", default=REPO / "figures", type=Path)
    parser.add_argument("--table", default=TABLE, help="the table, relative to --results")
    parser.add_argument("--figure", default=FIGURE, help="the figure's file name, under --figures")
    args = parser.parse_args(argv)
    path = args.results / args.table
    if not path.is_file():
        raise SystemExit(f"plot_letor: results table {path} not found (run the letor_ohsumed experiment)")
    table = read_table(path)
    args.figures.mkdir(parents=True, exist_ok=True)
    fig = figure(table)
    fig.savefig(args.figures / args.figure, dpi=120, metadata={"Software": None}, bbox_inches="tight")
    plt.close(fig)
    report = path.parent / "report.md"
    text = f"# {title(table)}\n\n" + markdown(table)
    if PUBLISHED.is_file() and title(table) == "LETOR 3.0 OHSUMED":  # LETOR 3.0's numbers: its data only
        text += "\n## Beside the published LETOR 3.0 baselines\n\n" + published_markdown(
            table, published_table())
    with atomic_path(report) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
    print(f"wrote {args.figures / args.figure} and {report}")


if __name__ == "__main__":
    main()
