"""Bad inputs of the query-aware PredtronRanker, the report spec and the results-table layout."""
import numpy as np
import pandas as pd

from conftest import Case
from ordrank.algorithms.structured import PredtronRanker
from ordrank.reports import ReportSpec
from ordrank.results import key_columns

ROWS = np.arange(12.0).reshape(6, 2)

CASES = [
    Case("predtron-ranker-relevance", "`PredtronRanker().fit(X, [0, 1, 2, -1, 0, 1], qid)`", ValueError,
         r"PredtronRanker: relevance must be integers >= 0, got \[-1.0\] \(first at row 3\)",
         lambda tmp: PredtronRanker().fit(ROWS, [0, 1, 2, -1, 0, 1], [0, 0, 0, 1, 1, 1])),
    Case("predtron-ranker-qid-split", "`PredtronRanker().fit(X, y, qid=[0, 0, 1, 1, 0, 0])`", ValueError,
         r"qid: the rows of query 0 are not contiguous \(rows from 0 and again from row 4\)",
         lambda tmp: PredtronRanker().fit(ROWS, [0, 1, 2, 0, 0, 1], [0, 0, 1, 1, 0, 0])),
    Case("predtron-ranker-rule-shape", "`PredtronRanker().init_state(4, 2, n_ranks=3)` (an ordinal shape)",
         TypeError, r"PredtronRanker.init_state takes no shape, got \['n_ranks'\]",
         lambda tmp: PredtronRanker().init_state(4, 2, n_ranks=3)),
    Case("report-unknown-key", "a `report:` section with `colums: [A]`", ValueError,
         r"report: unknown keys \['colums'\]; allowed keys",
         lambda tmp: ReportSpec.from_config({"reference": "A", "colums": ["A"]})),
    Case("report-yardstick", "a `report:` section whose `yardsticks` pairs an external learner with no listed method",
         ValueError, r"report: yardsticks maps 'C-A' to 'B'; each key must be one of the external",
         lambda tmp: ReportSpec.from_config({"reference": "A", "methods": ["A"], "external": ["C-A"],
                                             "yardsticks": {"C-A": "B"}})),
    Case("report-missing", "`ReportSpec.for_experiment('prank_synthetic')` (no `report:` section)",
         ValueError, r"experiment/prank_synthetic.yaml: report is missing",
         lambda tmp: ReportSpec.for_experiment("prank_synthetic")),
    Case("results-layout", "`key_columns(table)` of a table not laid out by `finalize`", ValueError,
         r"not a results table: its columns must start with experiment, dataset, algorithm",
         lambda tmp: key_columns(pd.DataFrame({"metric": ["m"], "value": [1.0], "algorithm": ["A"]}))),
]
