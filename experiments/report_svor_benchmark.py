"""Write the batch ordinal-regression benchmark's report and scatter figure from its results table.

    python experiments/report_svor_benchmark.py [--table results/svor_benchmark/benchmark.parquet]
        [--out results/svor_benchmark] [--figure figures/svor_benchmark_scatter.png] [--bins 10]

The report (report.md and CSVs) covers every bins value; the figure shows the benchmarks with
``--bins`` ranks (0: all; default: the README table's rows). Reads only the results table and its
timings table beside it (``benchmark.timings.parquet``, the training-time section); never trains
anything. What the report shows (block keys, Wilcoxon reference, column order) is the
``report:`` section of the table's experiment config, ``conf/experiment/<experiment>.yaml``,
composed by Hydra (``ordrank.reports.ReportSpec.for_experiment``); ``--reference`` overrides it.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ordrank.plotting.scatter import benchmark_scatter_figure
from ordrank.reports import ReportSpec, write_report
from ordrank.results import read_table, read_timings

REPO = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", default="results/svor_benchmark/benchmark.parquet", type=Path)
    parser.add_argument("--out", default="results/svor_benchmark", type=Path)
    parser.add_argument("--figure", default="figures/svor_benchmark_scatter.png", type=Path)
    parser.add_argument("--bins", default=None, type=int,
                        help="ranks shown in the figure (0: all; default: report.readme_where of the config)")
    parser.add_argument("--reference", default=None,
                        help="algorithm the Wilcoxon tests compare to (default: report.reference of the config)")
    args = parser.parse_args(argv)
    table = read_table(args.table)
    spec = ReportSpec.of_table(table, REPO / "conf")
    report = write_report(table, args.out, reference=args.reference, spec=spec,
                          timings=read_timings(args.table))
    print(f"wrote {report} and its CSVs in {args.out}")
    where = spec.readme_where if args.bins is None else {} if args.bins == 0 else {"bins": args.bins}
    shown = table
    for key, value in where.items():
        shown = shown[shown[key] == value]
    if shown.empty:
        print(f"note: no rows with {where}; the figure panels will be empty")
    benchmark_scatter_figure(shown, None, args.figure)
    print(f"wrote {args.figure}")


if __name__ == "__main__":
    main()
