"""Bad inputs of the rank statistics over benchmarks (rows of the table in tests/test_bad_inputs.py)."""
import numpy as np

from ordrank.reports.paired_tests import cd_groups, friedman, nemenyi_cd, nemenyi_q, rank_rows

from conftest import Case


def call(function, *args, **kwargs):
    """A trigger: ``function(*args, **kwargs)``."""
    return lambda tmp: function(*args, **kwargs)


CASES = [
    Case("friedman-two-algorithms", "`friedman(values)` with 4 benchmarks × 2 algorithms", ValueError,
         r"^friedman: needs ≥ 3 algorithms on ≥ 2 benchmarks; got 4 benchmarks × 2 algorithms$",
         call(friedman, np.ones((4, 2)))),
    Case("friedman-missing-value", "`friedman([[1, 2, 3], [1, nan, 3]])`", ValueError,
         r"^friedman: benchmark 1, algorithm 1 has no value \(NaN\)",
         call(friedman, [[1, 2, 3], [1, np.nan, 3]])),
    Case("rank-rows-3d", "`rank_rows(np.ones((2, 2, 2)))`", ValueError,
         r"^rank_rows: expected an N × k array of values, got shape \(2, 2, 2\)$",
         call(rank_rows, np.ones((2, 2, 2)))),
    Case("nemenyi-one-algorithm", "`nemenyi_q(1)`", ValueError,
         r"^nemenyi_q: needs k ≥ 2 algorithms and 0 < α < 1; got k = 1, α = 0.05$", call(nemenyi_q, 1)),
    Case("nemenyi-alpha", "`nemenyi_cd(4, 14, alpha=5)` (α in percent)", ValueError,
         r"^nemenyi_q: .* got k = 4, α = 5$", call(nemenyi_cd, 4, 14, alpha=5)),
    Case("nemenyi-no-benchmarks", "`nemenyi_cd(4, 0)`", ValueError,
         r"^nemenyi_cd: needs N ≥ 1 benchmarks; got N = 0$", call(nemenyi_cd, 4, 0)),
    Case("cd-groups-nan", "`cd_groups({'a': 1.0, 'b': 2.0}, nan)`", ValueError,
         r"^cd_groups: the critical difference must be a positive number; got nan$",
         call(cd_groups, {"a": 1.0, "b": 2.0}, float("nan"))),
]
