"""Write the boosting comparison's report and scatter figure from its results table (seed 003:
Reduction-Boost vs RankBoost, with ORBoost beside them).

    python experiments/report_boost_benchmark.py [--table results/boost_benchmark/benchmark.parquet]
        [--out results/boost_benchmark] [--figure figures/boost_benchmark_scatter.png]

The report (report.md and CSVs, as the svor_benchmark's) adds per metric the paired Wilcoxon tests
against the reference with Holm's adjustment over the data sets, and the tests over data sets. What it
shows is the ``report:`` section of ``conf/experiment/<experiment>.yaml``. Reads only the results
table and its timings table beside it (``benchmark.timings.parquet``, the training-time section);
never trains anything. ``markdown(table)`` is the README's generated block.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ordrank.plotting.scatter import benchmark_scatter_figure
from ordrank.reports import ReportSpec, benchmark_readme_markdown, paired_markdown, write_report
from ordrank.results import read_table, read_timings

REPO = Path(__file__).resolve().parents[1]
X, Y = "RankBoost", "Reduction-boost"  # the scatter: Reduction-boost's MAE against RankBoost's
TITLE = "Reduction-Boost vs RankBoost (seed 003), with ORBoost"


def _rows(table, spec):
    for key, value in spec.readme_where.items():
        table = table[table[key] == value]
    return table


def markdown(table) -> str:
    """The README block: MAE per data set, then the paired tests (raw and Holm p) and over data sets."""
    spec = ReportSpec.of_table(table, REPO / "conf")
    shown = _rows(table, spec)
    return (benchmark_readme_markdown(table, "mae", spec=spec) + "\n"
            + paired_markdown(shown, "mae", spec=spec))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", default="results/boost_benchmark/benchmark.parquet", type=Path)
    parser.add_argument("--out", default="results/boost_benchmark", type=Path)
    parser.add_argument("--figure", default="figures/boost_benchmark_scatter.png", type=Path)
    args = parser.parse_args(argv)
    table = read_table(args.table)
    spec = ReportSpec.of_table(table, REPO / "conf")
    report = write_report(table, args.out, spec=spec, title=TITLE, paired=True,
                          timings=read_timings(args.table),
                          script="experiments/report_boost_benchmark.py")
    print(f"wrote {report} and its CSVs in {args.out}")
    benchmark_scatter_figure(_rows(table, spec), [(X, Y)], args.figure, holm=True)
    print(f"wrote {args.figure}")


if __name__ == "__main__":
    main()
