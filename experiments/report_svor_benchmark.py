"""Write the batch ordinal-regression benchmark's report and scatter figure from its results table.

    python experiments/report_svor_benchmark.py [--table results/svor_benchmark/benchmark.parquet]
        [--out results/svor_benchmark] [--figure figures/svor_benchmark_scatter.png] [--bins 10]
        [--cd-figure figures/svor_benchmark_cd.png] [--pairs SVORIM:MyLearner ...] [--cd-among all]

The report (report.md and CSVs) covers every bins value, with Demšar's rank statistics (Friedman,
Iman–Davenport, Nemenyi's CD; ranks among ordrank's methods and among all rows) and the paired
Wilcoxon tests with Holm's adjustment; the scatter shows the benchmarks with ``--bins`` ranks (0: all;
default: the README table's rows); the critical-difference diagram (``--cd-figure``, default beside
the scatter) ranks ordrank's methods (the config's ``report.methods``; ``--cd-among all``: every
algorithm of the table, e.g. a learner of your own) over every benchmark. ``--pairs X:Y`` picks the
scatter's panels (Y against X; default: the papers' pairs the table has). Reads only the results table and its
timings table beside it (``benchmark.timings.parquet``, the training-time section) and its jobs table
(``benchmark.jobs.parquet``, where the jobs ran, when there is one); never
trains anything. What the report shows (block keys, Wilcoxon reference, column order) is the
``report:`` section of the table's experiment config, ``conf/experiment/<experiment>.yaml``,
composed by Hydra (``ordrank.reports.ReportSpec.for_experiment``); ``--reference`` overrides it.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ordrank.plotting.cd import benchmark_cd_figure
from ordrank.plotting.scatter import benchmark_scatter_figure
from ordrank.reports import ReportSpec, rank_statistics_markdown, write_report
from ordrank.results import read_table, read_timings
from ordrank.results.files import read_jobs

REPO = Path(__file__).resolve().parents[1]
CD_FIGURE = "svor_benchmark_cd.png"


def write(table, out, reference=None, timings=None, jobs=None):
    """report.md and its CSVs, as this script writes them (``timings``: the training-time rows;
    ``jobs``: where each job ran, the jobs table)."""
    spec = ReportSpec.of_table(table, REPO / "conf")
    return write_report(table, out, reference=reference, spec=spec, paired=True, statistics=True,
                        timings=timings, jobs=jobs)


def statistics_markdown(table) -> str:
    """The README block: Demšar's rank statistics of the MAE (every benchmark of the table)."""
    spec = ReportSpec.of_table(table, REPO / "conf")
    return rank_statistics_markdown(table, "mae", spec)


def pair(text: str) -> tuple[str, str]:
    """``--pairs`` value ``X:Y`` (two algorithm names)."""
    x, sep, y = text.partition(":")
    if not (sep and x and y):
        raise argparse.ArgumentTypeError(f"{text!r} is not X:Y (two algorithm names, e.g. SVORIM:MyLearner)")
    return x, y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", default="results/svor_benchmark/benchmark.parquet", type=Path)
    parser.add_argument("--out", default="results/svor_benchmark", type=Path)
    parser.add_argument("--figure", default="figures/svor_benchmark_scatter.png", type=Path)
    parser.add_argument("--bins", default=None, type=int,
                        help="ranks shown in the figure (default: every bin count, a row of panels each)")
    parser.add_argument("--cd-figure", default=None, type=Path,
                        help=f"critical-difference diagram (default: {CD_FIGURE} beside --figure)")
    parser.add_argument("--pairs", nargs="+", metavar="X:Y", type=pair,
                        help="scatter panels, each Y's error against X's (default: the papers' pairs in the table)")
    parser.add_argument("--cd-among", choices=["methods", "all"], default="methods",
                        help="rank the config's report.methods (default) or every algorithm of the table")
    parser.add_argument("--reference", default=None,
                        help="algorithm the Wilcoxon tests compare to (default: report.reference of the config)")
    args = parser.parse_args(argv)
    table = read_table(args.table)
    spec = ReportSpec.of_table(table, REPO / "conf")
    report = write(table, args.out, reference=args.reference, timings=read_timings(args.table),
                   jobs=read_jobs(args.table))
    print(f"wrote {report} and its CSVs in {args.out}")
    where = {} if args.bins is None else {"bins": args.bins}
    shown = table
    for key, value in where.items():
        shown = shown[shown[key] == value]
    if shown.empty:
        print(f"note: no rows with {where}; the figure panels will be empty")
    missing = sorted({name for pair in args.pairs or () for name in pair} - set(table["algorithm"]))
    if missing:
        parser.error(f"--pairs names {missing}, which {args.table} does not have; it has "
                     f"{sorted(table['algorithm'].unique())}")
    benchmark_scatter_figure(shown, args.pairs, args.figure)
    print(f"wrote {args.figure}")
    cd_figure = args.cd_figure or args.figure.parent / CD_FIGURE
    benchmarks = table[list(spec.block)].drop_duplicates()
    if len(benchmarks) < 2:  # ranks over one benchmark say nothing: no diagram (and no stale one)
        cd_figure.unlink(missing_ok=True)
        print(f"no critical-difference diagram: the table has {len(benchmarks)} benchmark(s)")
        return
    if args.cd_among == "all":
        benchmark_cd_figure(table, cd_figure, among=None, spec=spec, label="among all algorithms")
    else:
        benchmark_cd_figure(table, cd_figure, among=spec.methods, spec=spec, label="among ordrank's methods")
    print(f"wrote {cd_figure}")


if __name__ == "__main__":
    main()
