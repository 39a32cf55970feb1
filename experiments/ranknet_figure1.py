"""RankNet's Figure 1 (Burges et al., ICML 2005): write its tidy table, then draw it from that table.

    python experiments/ranknet_figure1.py    # → results/ranknet_figure1/curves.parquet
                                             #   and figures/ranknet_figure1.png

The table holds closed forms only (``ordrank.algorithms.ranking.ranknet_theory.figure1_table``:
columns panel, pbar, x, value), so there is nothing to train; the figure is drawn from the table as
read back from disk, like every figure of the repository. Left: the cost C(o_ij) for the targets
P̄ = 0, 0.5, 1 over o_ij ∈ [−5, 5]. Right: P̄_ik against P when P̄_ij = P̄_jk = P, with the diagonal
P̄_ik = P and the lines at ½ as guides. Both files are the same byte for byte on every run: the
values are rounded to 12 decimals (``DECIMALS``) before they are written, since numpy's ``exp`` and
``log1p`` differ in the last bit between CPUs (26 of the 804 values, by 2.2e-16, between two hosts of
this machine's kind), which changed the committed table's bytes on a mere rebuild from the tables.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from ordrank.algorithms.ranking.ranknet_theory import FIGURE1_O_RANGE, figure1_table
from ordrank.results import atomic_path, read_table, write_table

TABLE = Path("ranknet_figure1") / "curves.parquet"  # under --results
FIGURE = "ranknet_figure1.png"                      # under --figures
DECIMALS = 12                                       # the table's values, rounded (see above)
COLORS = {0.0: "tab:blue", 0.5: "tab:green", 1.0: "tab:red"}


def draw(table):
    """The two panels of Figure 1 from its tidy table."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.2, 4.0))
    cost = table[table["panel"] == "cost"]
    combined = table[table["panel"] == "combined"]
    if cost.empty or combined.empty:
        raise ValueError(f"the Figure 1 table needs rows of both panels 'cost' and 'combined'; "
                         f"it has {sorted(table['panel'].unique())}")
    for target, curve in cost.groupby("pbar", sort=True):
        left.plot(curve["x"], curve["value"], lw=1.6, color=COLORS.get(float(target)),
                  label=rf"$\bar P_{{ij}} = {target:g}$")
    left.set(xlim=FIGURE1_O_RANGE, ylim=(0, None), xlabel=r"$o_{ij} = o_i - o_j$",
             ylabel=r"$C_{ij} = -\bar P_{ij}\, o_{ij} + \log(1 + e^{o_{ij}})$")
    left.set_title("cost, for three values of the target probability", fontsize="medium")
    left.legend(frameon=False)
    left.grid(alpha=0.3)

    right.plot([0, 1], [0, 1], ls=":", lw=1, color="0.5", label=r"$\bar P_{ik} = P$")
    right.axvline(0.5, ls="--", lw=0.8, color="0.7")
    right.axhline(0.5, ls="--", lw=0.8, color="0.7")
    right.plot(combined["x"], combined["value"], lw=1.6, color="k",
               label=r"$\bar P_{ik} = P^2 / (1 + 2P^2 - 2P)$")
    right.set(xlim=(0, 1), ylim=(0, 1), aspect="equal", xlabel=r"$P = \bar P_{ij} = \bar P_{jk}$",
              ylabel=r"$\bar P_{ik}$")
    right.set_title("combining probabilities", fontsize="medium")
    right.legend(frameon=False, loc="upper left", fontsize="small")
    right.grid(alpha=0.3)
    fig.suptitle("RankNet (Burges et al. 2005), Figure 1", fontsize="medium")
    fig.tight_layout()
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="results", type=Path)
    parser.add_argument("--figures", default="figures", type=Path)
    args = parser.parse_args(argv)
    table = figure1_table()
    table["value"] = table["value"].round(DECIMALS)  # the same bytes on every CPU
    table_path = write_table(table, args.results / TABLE)
    fig = draw(read_table(table_path))
    with atomic_path(args.figures / FIGURE) as tmp:
        fig.savefig(tmp, format="png", dpi=120, metadata={"Software": None})
    plt.close(fig)
    print(f"wrote {table_path} and {args.figures / FIGURE}")


if __name__ == "__main__":
    main()
