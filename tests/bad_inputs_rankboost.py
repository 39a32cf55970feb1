"""Bad inputs of RankBoost, RankBoostOrdinal and the cut-point dynamic program: rows of the table."""
import numpy as np
from conftest import Case
from sklearn.utils._param_validation import InvalidParameterError

from ordrank.algorithms.ranking import RankBoost, RankBoostOrdinal
from ordrank.algorithms.ranking._thresholds import absolute_cost_thresholds

X4 = np.arange(8.0).reshape(4, 2)

CASES = [
    Case("rankboost-zero-rounds", "`RankBoost(n_estimators=0)`", InvalidParameterError,
         r"^The 'n_estimators' parameter of RankBoost must be an int in the range \[1, inf\)",
         lambda tmp: RankBoost(n_estimators=0).fit(X4, [0, 1, 0, 1])),
    Case("rankboost-zero-thresholds", "`RankBoostOrdinal(n_thresholds=0)`", InvalidParameterError,
         r"^The 'n_thresholds' parameter of RankBoostOrdinal must be an int in the range \[1, inf\) or "
         r"None", lambda tmp: RankBoostOrdinal(n_thresholds=0).fit(X4, [1, 2, 1, 2])),
    Case("rankboost-no-pair", "`RankBoost().fit(X, [1, 1, 0, 0], qid=[1, 1, 2, 2])` (one grade per "
         "query)", ValueError, r"^RankBoost: y gives no preference pair, nothing to rank: every query's "
         r"documents have one relevance \(4 samples, 2 queries\)",
         lambda tmp: RankBoost().fit(X4, [1, 1, 0, 0], qid=[1, 1, 2, 2])),
    Case("rankboost-qid-split", "`RankBoost().fit(X, y, qid=[1, 2, 1, 2])`", ValueError,
         r"^qid: the rows of query 1 are not contiguous \(rows from 0 and again from row 2\)",
         lambda tmp: RankBoost().fit(X4, [0, 1, 0, 1], qid=[1, 2, 1, 2])),
    Case("rankboost-ordinal-one-rank", "`RankBoostOrdinal().fit(X, [3, 3, 3, 3])`", ValueError,
         r"^need at least 2 ranks \(1 class given\): classes=\[3\]",
         lambda tmp: RankBoostOrdinal().fit(X4, [3, 3, 3, 3])),
    Case("cut-points-rank-outside", "`absolute_cost_thresholds([0.1, 0.5], [1, 4], 3)`", ValueError,
         r"^absolute_cost_thresholds: ranks must be integers in 1\.\.3; ranks\[1\] = 4",
         lambda tmp: absolute_cost_thresholds([0.1, 0.5], [1, 4], 3)),
    Case("cut-points-float-ranks", "`absolute_cost_thresholds([0.1, 0.5], [1.0, 2.0], 2)`", ValueError,
         r"^absolute_cost_thresholds: ranks must be integers in 1\.\.2, got dtype float64",
         lambda tmp: absolute_cost_thresholds([0.1, 0.5], [1.0, 2.0], 2)),
    Case("cut-points-nan-score", "`absolute_cost_thresholds([0.1, nan], [1, 2], 2)`", ValueError,
         r"^absolute_cost_thresholds: scores\[1\] = nan is not finite",
         lambda tmp: absolute_cost_thresholds([0.1, np.nan], [1, 2], 2)),
    Case("cut-points-lengths", "`absolute_cost_thresholds([0.1, 0.5], [1], 2)`", ValueError,
         r"^absolute_cost_thresholds: scores and ranks must be 1-D of one length, got shapes \(2,\) and "
         r"\(1,\)", lambda tmp: absolute_cost_thresholds([0.1, 0.5], [1], 2)),
]
