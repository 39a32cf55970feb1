"""Reports of the benchmarks, computed from the tidy results tables only.

:mod:`~ordrank.reports.summaries`
    The long results table (one row per block, algorithm, partition and metric; failed rows NaN)
    summarized as mean ± standard error per benchmark.
:mod:`~ordrank.reports.statistics`
    Paired Wilcoxon tests with Holm's adjustment, average ranks, Friedman's, Iman–Davenport's and
    Nemenyi's tests over benchmarks (the tests themselves: :mod:`ordrank.reports.paired_tests`).
:mod:`~ordrank.reports.tables`
    The batch benchmark's markdown tables, training times, ``write_report`` (report.md and CSVs)
    and the README's benchmark table.
:mod:`~ordrank.reports.yardsticks`
    Each of ordrank's methods beside an established code of the same method (the config's
    ``report.yardsticks``): paired differences, Wilcoxon with Holm, equal model selections, job times.
:mod:`~ordrank.reports.online`
    The README's online-learning tables.
:mod:`~ordrank.reports.readme`
    The README's generated blocks, between ``<!-- BEGIN table:NAME -->`` / ``<!-- END ... -->``.

What a report shows is the ``report:`` section of the experiment's config (:class:`ReportSpec`);
nothing here names a study's algorithms. Every function is a pure function of the table;
``write_report`` writes the files, sorted and with fixed decimals, so that the same table always
gives the same bytes. Every name is importable from ``ordrank.reports`` itself.
"""
from __future__ import annotations

from ordrank.reports.spec import ReportSpec
from ordrank.reports.online import (ONLINE_ORDER, algorithm_label, config_value, final_losses,
                                    online_comparison_markdown, online_final_markdown)
from ordrank.reports.readme import generated_blocks, marker, replace_block
from ordrank.reports.statistics import (ALPHA, average_ranks, friedman_line, paired_markdown, paired_wilcoxon,
                                        rank_statistics_markdown, rank_table)
from ordrank.reports.summaries import column_order, mean_sem, metric_rows, summary
from ordrank.reports.tables import (LABELS_SHORT, TITLES, benchmark_readme_markdown, fixed, markdown_table,
                                    time_markdown, time_table, write_report, write_text)
from ordrank.reports.yardsticks import (yardstick_markdown, yardstick_tests, yardstick_time_markdown,
                                        yardstick_times)

__all__ = [
    "ALPHA", "LABELS_SHORT", "ONLINE_ORDER", "TITLES", "ReportSpec", "algorithm_label", "average_ranks",
    "benchmark_readme_markdown", "column_order", "config_value", "final_losses", "fixed", "friedman_line",
    "generated_blocks", "markdown_table", "marker", "mean_sem", "metric_rows", "online_comparison_markdown",
    "online_final_markdown", "paired_markdown", "paired_wilcoxon", "rank_statistics_markdown",
    "rank_table", "replace_block", "summary", "time_markdown", "time_table", "write_report", "write_text",
    "yardstick_markdown", "yardstick_tests", "yardstick_time_markdown", "yardstick_times",
]
