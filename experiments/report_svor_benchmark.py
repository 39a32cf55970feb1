"""Write the batch ordinal-regression benchmark's report and scatter figure from its results table.

    python experiments/report_svor_benchmark.py [--table results/svor_benchmark/benchmark.parquet]
        [--out results/svor_benchmark] [--figure figures/svor_benchmark_scatter.png] [--bins 10]

The report (report.md and CSVs) covers every bins value; the figure shows the benchmarks with
``--bins`` ranks (0: all). Reads only the results table; never trains anything.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ordrank.plotting.scatter import benchmark_scatter_figure
from ordrank.reports import write_report
from ordrank.results import read_table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", default="results/svor_benchmark/benchmark.parquet", type=Path)
    parser.add_argument("--out", default="results/svor_benchmark", type=Path)
    parser.add_argument("--figure", default="figures/svor_benchmark_scatter.png", type=Path)
    parser.add_argument("--bins", default=10, type=int, help="ranks shown in the figure (0: all)")
    parser.add_argument("--reference", default="SVORIM", help="algorithm the Wilcoxon tests compare to")
    args = parser.parse_args(argv)
    table = read_table(args.table)
    report = write_report(table, args.out, reference=args.reference)
    print(f"wrote {report} and its CSVs in {args.out}")
    shown = table if args.bins == 0 else table[table["bins"] == args.bins]
    if shown.empty:
        print(f"note: no rows with bins = {args.bins}; the figure panels will be empty")
    benchmark_scatter_figure(shown, None, args.figure)
    print(f"wrote {args.figure}")


if __name__ == "__main__":
    main()
