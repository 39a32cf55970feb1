"""Draw the PRank paper's Figure 4 panels from the committed tables in results/ into figures/.

    python experiments/plot_figure4.py            # every panel whose table exists

Reads only results tables; never trains anything.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib.pyplot as plt

from ordrank.plotting import online_figure
from ordrank.results import read_table

SYNTHETIC = ("Synthetic", "prank_synthetic/crammer_singer.parquet", "sequences")
FIGURES = {  # figure file -> panels (title, table under results/, what a seed is)
    "prank_synthetic.png": [SYNTHETIC],
    "figure4_generator.png": [
        SYNTHETIC,
        ("EachMovie-100 (generator)", "prank_eachmovie100/eachmovie_style.parquet", "target users"),
        ("EachMovie-200 (generator)", "prank_eachmovie200/eachmovie_style.parquet", "target users"),
    ],
    "figure4_movielens.png": [
        SYNTHETIC,
        ("MovieLens-100K, ≥ 100 ratings", "prank_eachmovie100/movielens_100k.parquet", "target users"),
        ("MovieLens-100K, ≥ 200 ratings", "prank_eachmovie200/movielens_100k.parquet", "target users"),
    ],
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", default="results", type=Path)
    parser.add_argument("--figures", default="figures", type=Path)
    args = parser.parse_args(argv)
    if not args.results.is_dir():
        print(f"error: --results {args.results} is not a folder (the results tables are read from it; "
              "run the experiments first, see README)", file=sys.stderr)
        return 2
    args.figures.mkdir(parents=True, exist_ok=True)
    drawn = 0
    for name, panels in FIGURES.items():
        paths = [(title, args.results / table, unit) for title, table, unit in panels]
        missing = [str(p) for _, p, _ in paths if not p.is_file()]
        if missing:
            print(f"skipping {name}: missing {', '.join(missing)}")
            continue
        fig = online_figure([(title, read_table(p), unit) for title, p, unit in paths])
        fig.savefig(args.figures / name, dpi=120, metadata={"Software": None})
        plt.close(fig)
        print(f"wrote {args.figures / name}")
        drawn += 1
    if not drawn:
        print(f"error: no figure drawn: {args.results} holds none of the tables listed above",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
