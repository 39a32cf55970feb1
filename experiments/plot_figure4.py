"""Draw the PRank paper's Figure 4 panels from the committed tables in results/ into figures/.

    python experiments/plot_figure4.py            # every panel whose table exists

Reads only results tables; never trains anything.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib.pyplot as plt

from ordrank.plotting import online_figure
from ordrank.results import read_table

FIGURES = {  # figure file -> panels (title, table)
    "prank_synthetic.png": [("Synthetic", "prank_synthetic.parquet")],
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", default="results", type=Path)
    parser.add_argument("--figures", default="figures", type=Path)
    args = parser.parse_args(argv)
    args.figures.mkdir(parents=True, exist_ok=True)
    for name, panels in FIGURES.items():
        paths = [(title, args.results / table) for title, table in panels]
        missing = [str(p) for _, p in paths if not p.is_file()]
        if missing:
            print(f"skipping {name}: missing {', '.join(missing)}")
            continue
        fig = online_figure([(title, read_table(p)) for title, p in paths])
        fig.savefig(args.figures / name, dpi=120, metadata={"Software": None})
        plt.close(fig)
        print(f"wrote {args.figures / name}")


if __name__ == "__main__":
    main()
