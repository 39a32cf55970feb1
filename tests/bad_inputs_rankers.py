"""Bad inputs of the pairwise rankers (RankSVM, RankNet): rows of the bad-input table."""
import numpy as np
from sklearn.utils._param_validation import InvalidParameterError

from conftest import Case
from ordrank.algorithms.ranking import RankNet, RankSVM

RNG = np.random.default_rng(0)
X = RNG.normal(size=(12, 3))
Y = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2], dtype=float)
QID = np.repeat([1, 2, 3], 4)
SPLIT_QID = np.array([1, 1, 2, 2, 1, 1, 3, 3, 3, 3, 3, 3])  # query 1 in two runs
NAN_Y = np.where(np.arange(12) == 5, np.nan, Y)

CASES = [
    Case("ranksvm-negative-C", "`RankSVM(C=-1).fit(X, y, qid=qid)`", InvalidParameterError,
         r"^The 'C' parameter of RankSVM must be a float in the range \(0\.0, inf\)\. Got -1 instead\.$",
         lambda tmp: RankSVM(C=-1).fit(X, Y, qid=QID)),
    Case("ranksvm-unknown-loss", "`RankSVM(loss='log').fit(X, y, qid=qid)`", InvalidParameterError,
         r"^The 'loss' parameter of RankSVM must be a str among .*'hinge'.*Got 'log' instead\.$",
         lambda tmp: RankSVM(loss="log").fit(X, Y, qid=QID)),
    Case("ranknet-unknown-ties", "`RankNet(ties='mean').fit(X, y, qid=qid)`", InvalidParameterError,
         r"^The 'ties' parameter of RankNet must be a str among .*Got 'mean' instead\.$",
         lambda tmp: RankNet(ties="mean").fit(X, Y, qid=QID)),
    Case("ranknet-zero-hidden", "`RankNet(hidden=0).fit(X, y, qid=qid)`", InvalidParameterError,
         r"^The 'hidden' parameter of RankNet must be an int in the range \[1, inf\) or None\. Got 0",
         lambda tmp: RankNet(hidden=0).fit(X, Y, qid=QID)),
    Case("ranksvm-qid-not-contiguous", "`RankSVM().fit(X, y, qid=[1, 1, 2, 2, 1, 1, 3, ...])`",
         ValueError, r"^qid: the rows of query 1 are not contiguous \(rows from 0 and again from row 4\)",
         lambda tmp: RankSVM().fit(X, Y, qid=SPLIT_QID)),
    Case("ranknet-qid-too-short", "`RankNet().fit(X, y, qid=qid[:-1])`", ValueError,
         r"^qid has 11 entries for 12 rows$", lambda tmp: RankNet().fit(X, Y, qid=QID[:-1])),
    Case("ranksvm-nan-relevance", "`RankSVM().fit(X, y, qid=qid)` with y[5] = NaN", ValueError,
         r"Input y contains NaN", lambda tmp: RankSVM().fit(X, NAN_Y, qid=QID)),
    Case("ranksvm-all-ties", "`RankSVM().fit(X, np.ones(12), qid=qid)` (no preference pair)",
         ValueError, r"^RankSVM: no preference pair \(n_samples=12\): within every query all rows have "
         r"the same label", lambda tmp: RankSVM().fit(X, np.ones(12), qid=QID)),
    Case("ranknet-all-ties", "`RankNet().fit(X, np.ones(12))` (one query, all tied, ties='skip')",
         ValueError, r"^RankNet: no pair to learn from \(n_samples=12\)",
         lambda tmp: RankNet().fit(X, np.ones(12))),
    Case("ranknet-singletons-half", "`RankNet(ties='half').fit(X, y, qid=np.arange(12))` "
         "(every query one row)", ValueError, r"^RankNet: no pair to learn from \(n_samples=12\)",
         lambda tmp: RankNet(ties="half").fit(X, Y, qid=np.arange(12))),
    Case("ranksvm-string-labels", "`RankSVM().fit(X, ['low', 'mid', ...], qid=qid)`", ValueError,
         r"^RankSVM: y must hold numeric relevance grades \(larger = more relevant\); row 0 has 'low' "
         r"\(dtype <U4\)$", lambda tmp: RankSVM().fit(X, np.array(["low", "mid", "high"])[Y.astype(int)], qid=QID)),
    Case("ranksvm-overflowing-scale", "`RankSVM().fit(X * 1e200, y, qid=qid)` (finite X)", ValueError,
         r"^RankSVM: C · pairs · max\|x\| · √n_features \(C=1, 15 pairs, max\|x\| = .*e\+200\) is .*, beyond "
         r"1e\+150: the fit would overflow float64", lambda tmp: RankSVM().fit(X * 1e200, Y, qid=QID)),
    Case("ranknet-overflowing-sigma", "`RankNet(sigma=1e300).fit(X, y, qid=qid)`", ValueError,
         r"^RankNet: σ · max\|x\| · √n_features \(sigma=1e\+300, .*beyond 1e\+150: the fit would overflow",
         lambda tmp: RankNet(sigma=1e300).fit(X, Y, qid=QID)),
    Case("ranker-score-without-qid", "`RankSVM().fit(X, y, qid=qid).score(X, y)` (GridSearchCV without "
         "metadata routing)", ValueError, r"^RankSVM\.score received no qid, though fitted with one",
         lambda tmp: RankSVM().fit(X, Y, qid=QID).score(X, Y)),
]
