"""Bad inputs of the external learners' adapters (LightGBM, XGBoost), OrdinalRanker and LeastSquaresRanker."""
from __future__ import annotations

import sys
from unittest import mock

import numpy as np
from sklearn.utils._param_validation import InvalidParameterError

from ordrank.algorithms import MulticlassPerceptron, PredtronOrdinal, PRank, RoundedRegression
from ordrank.algorithms.ranking import (LeastSquaresRanker, LightGBMRanker, OrdinalRanker,
                                        XGBoostRanker)

from conftest import Case

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 3))
Y = RNG.integers(0, 3, 30).astype(float)
QID = np.repeat([0, 1, 2], 10)


def grades(row, value):
    y = Y.copy()
    y[row] = value
    return y


def without(module, ranker):
    """A trigger: fit ``ranker`` as if ``module`` were not installed."""
    def trigger(tmp):
        with mock.patch.dict(sys.modules, {module: None}):
            return ranker.fit(X, Y, qid=QID)
    return trigger


CASES = [
    Case("lightgbm-negative-grade", "`LightGBMRanker().fit(X, y, qid=qid)` with y = −1 at row 4",
         ValueError, r"^LightGBMRanker: relevance labels must be non-negative integers .*row 4 has -1\.0",
         lambda tmp: LightGBMRanker().fit(X, grades(4, -1), qid=QID)),
    Case("lightgbm-fractional-grade", "`LightGBMRanker().fit(X, y, qid=qid)` with y = 1.5 at row 7",
         ValueError, r"^LightGBMRanker: relevance labels must be non-negative integers .*row 7 has 1\.5",
         lambda tmp: LightGBMRanker().fit(X, grades(7, 1.5), qid=QID)),
    Case("lightgbm-grade-above-gains", "`LightGBMRanker().fit(X, y, qid=qid)` with a grade 40",
         ValueError, r"^LightGBMRanker: relevance label 40 at row 2 is above 30.*pass label_gain",
         lambda tmp: LightGBMRanker().fit(X, grades(2, 40), qid=QID)),
    Case("xgboost-negative-grade", '`XGBoostRanker(objective="rank:pairwise").fit(X, y, qid=qid)` '
         "with y = −2 at row 0", ValueError,
         r"^XGBoostRanker: relevance labels must be non-negative integers .*row 0 has -2\.0",
         lambda tmp: XGBoostRanker(objective="rank:pairwise").fit(X, grades(0, -2), qid=QID)),
    Case("xgboost-fractional-grade", "`XGBoostRanker().fit(X, y, qid=qid)` with y = 0.25 at row 9",
         ValueError, r"^XGBoostRanker: relevance labels must be non-negative integers .*row 9 has 0\.25",
         lambda tmp: XGBoostRanker().fit(X, grades(9, 0.25), qid=QID)),
    Case("xgboost-grade-above-gains", '`XGBoostRanker(objective="rank:ndcg").fit(X, y, qid=qid)` with '
         "a grade 32", ValueError, r"^XGBoostRanker: relevance label 32 at row 5 is above 31.*"
         r"ndcg_exp_gain", lambda tmp: XGBoostRanker().fit(X, grades(5, 32), qid=QID)),
    Case("external learner-qid-not-contiguous", "`LightGBMRanker().fit(X, y, qid=[0]*10 + [1]*10 + [0]*10)`",
         ValueError, r"qid: the rows of query 0 are not contiguous \(rows from 0 and again from row 20\)",
         lambda tmp: LightGBMRanker().fit(X, Y, qid=np.repeat([0, 1, 0], 10))),
    Case("external learner-bad-objective", '`LightGBMRanker(objective="rank:ndcg")` (an XGBoost objective)',
         InvalidParameterError, r"The 'objective' parameter of LightGBMRanker must be a str among",
         lambda tmp: LightGBMRanker(objective="rank:ndcg").fit(X, Y, qid=QID)),
    Case("external learner-params-clash", '`XGBoostRanker(params={"n_jobs": 4, "max_depth": 3})`', ValueError,
         r"^XGBoostRanker: params sets \['max_depth', 'n_jobs'\], parameters of XGBoostRanker itself; "
         r"set them directly$",
         lambda tmp: XGBoostRanker(params={"n_jobs": 4, "max_depth": 3}).fit(X, Y, qid=QID)),
    Case("lightgbm-missing", "`LightGBMRanker().fit(...)` without lightgbm installed", ImportError,
         r'^LightGBMRanker needs the lightgbm package, which is not installed: pip install "lightgbm>=4"',
         without("lightgbm", LightGBMRanker())),
    Case("xgboost-missing", "`XGBoostRanker().fit(...)` without xgboost installed", ImportError,
         r'^XGBoostRanker needs the xgboost package, .* pip install "xgboost-cpu>=2"',
         without("xgboost", XGBoostRanker())),
    Case("ordinal-ranker-per-class-scores", "`OrdinalRanker(MulticlassPerceptron()).fit(X, y, qid=qid)`",
         ValueError, r"^OrdinalRanker: MulticlassPerceptron has no latent real score to rank by: its "
         r"decision_function gives 3 scores per row",
         lambda tmp: OrdinalRanker(MulticlassPerceptron()).fit(X, Y, qid=QID)),
    Case("ordinal-ranker-predtron", "`OrdinalRanker(PredtronOrdinal()).fit(X, y, qid=qid)`",
         ValueError, r"^OrdinalRanker: PredtronOrdinal has no latent real score .* 3 scores per row",
         lambda tmp: OrdinalRanker(PredtronOrdinal()).fit(X, Y, qid=QID)),
    Case("ordinal-ranker-no-decision", "`OrdinalRanker(RoundedRegression()).fit(X, y, qid=qid)`",
         ValueError, r"^OrdinalRanker: RoundedRegression has no latent real score .* no decision_function",
         lambda tmp: OrdinalRanker(RoundedRegression()).fit(X, Y, qid=QID)),
    Case("ordinal-ranker-fractional-grade", "`OrdinalRanker(PRank()).fit(X, y, qid=qid)` with y = 2.5 at "
         "row 3", ValueError, r"^OrdinalRanker: the relevance grades are the ordinal learner's labels and "
         r"must be integers; row 3 has 2\.5$",
         lambda tmp: OrdinalRanker(PRank()).fit(X, grades(3, 2.5), qid=QID)),
    Case("least-squares-negative-alpha", "`LeastSquaresRanker(alpha=-1)`", InvalidParameterError,
         r"The 'alpha' parameter of LeastSquaresRanker must be a float in the range \[0\.0, inf\)",
         lambda tmp: LeastSquaresRanker(alpha=-1).fit(X, Y, qid=QID)),
    Case("lightgbm-label-gain-short", "`LightGBMRanker(params={'label_gain': [0, 1]})` on grades 0..2",
         ValueError, r"^LightGBMRanker: relevance label 2 at row \d+ is above 1, .* \(it has 2, for grades 0\.\.1\)$",
         lambda tmp: LightGBMRanker(n_estimators=2, params={"label_gain": [0, 1]}).fit(X, Y, qid=QID)),
    Case("lightgbm-misspelled-param", "`LightGBMRanker(params={'num_leavs': 3})`", ValueError,
         r"^LightGBMRanker: params has 'num_leavs', which is neither an LGBMRanker keyword nor a LightGBM "
         r"parameter \(LightGBM would ignore it\); did you mean num_leaves",
         lambda tmp: LightGBMRanker(n_estimators=2, params={"num_leavs": 3}).fit(X, Y, qid=QID)),
    Case("xgboost-beyond-float32", "`XGBoostRanker().fit(X * 1e200, y, qid=qid)`", ValueError,
         r"^XGBoostRanker: X\[0, 0\] = .*e\+199 is beyond float32's range",
         lambda tmp: XGBoostRanker(n_estimators=2).fit(X * 1e200, Y, qid=QID)),
    Case("least-squares-overflow", "`LeastSquaresRanker().fit(X * 1e200, y, qid=qid)`", ValueError,
         r"^LeastSquaresRanker: max\(\|x\|, \|y\|\) · √\(entries\) .* beyond 1e\+150",
         lambda tmp: LeastSquaresRanker().fit(X * 1e200, Y, qid=QID)),
]
