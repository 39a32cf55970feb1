"""What the Predtron Figure 1 speed-ups keep: the same numbers. RankSVM's hinge counts from the
explicit pairs equal the sorting sweep's, so the fit is the same bit for bit; the subset-ranking
protocol gives the same table whatever the number of worker processes for its batch rankers."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ordrank.algorithms.ranking.ranksvm as ranksvm
from ordrank.algorithms.ranking import LeastSquaresRanker, RankSVM
from ordrank.algorithms.ranking._pairwise import dense_ranks, margin_counts, pair_counts
from ordrank.algorithms.structured import PredtronRanker
from ordrank.datasets.subset_ranking import GaussianSubsetRanking
from ordrank.protocols.subset_ranking import SubsetRankingProtocol, flat
from ordrank.queries import preference_pairs, query_index


@given(st.integers(0, 10_000), st.integers(1, 9), st.sampled_from([0.0, 0.5, 1.0]))
def test_pair_counts_equal_the_sweep_counts(seed, levels, margin):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(4), rng.integers(1, 12, 4))
    y = rng.integers(0, levels, len(qid)).astype(float)
    s = np.round(rng.normal(size=len(qid)), 1)  # ties between s_i and s_j + margin happen
    expected = margin_counts(s, margin, *dense_ranks(y), query_index(qid))
    found = pair_counts(s, margin, *preference_pairs(y, qid), len(qid))
    for a, b in zip(found, expected):
        assert a.dtype == b.dtype == np.float64
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n", [3, 12])
def test_ranksvm_on_small_queries_fits_the_same_bits_with_either_count(n, monkeypatch):
    task_rng, _, train_rng = SubsetRankingProtocol().streams(0, 1, 20, 30)
    X, y, qid = flat(*GaussianSubsetRanking().task(task_rng, 20, 30).sample(train_rng, n))
    fast = RankSVM(C=10.0).fit(X, y, qid)
    init = ranksvm._Problem.__init__

    def sweep_only(self, *args, **kwargs):
        init(self, *args, **kwargs)
        assert self.pairs is not None  # the explicit pairs were the default here
        self.pairs = None

    monkeypatch.setattr(ranksvm._Problem, "__init__", sweep_only)
    slow = RankSVM(C=10.0).fit(X, y, qid)
    assert fast.n_iter_ == slow.n_iter_
    np.testing.assert_array_equal(fast.coef_, slow.coef_)


def test_the_table_is_the_same_whatever_n_jobs():
    learners = {"P": PredtronRanker(n_epochs=3, stop_when_separated=True),
                "LS": LeastSquaresRanker(), "SVM": RankSVM(C=1.0)}
    tables = []
    for n_jobs in (1, 2):
        protocol = SubsetRankingProtocol(n_repetitions=3, n_train=[4, 9], m=6, p=5, n_test=12,
                                         passes_mode=["until_separated", "one"], n_jobs=n_jobs)
        tables.append(pd.concat(protocol.iter_run(GaussianSubsetRanking(), learners, seed=2),
                                ignore_index=True))
    pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)
    assert set(tables[0].algorithm) == {"P", "LS", "SVM"}
    # a resumed run: the pieces in `skip` are left out, the others are the same rows, on either path
    skip = {("P", "until_separated", 6, 5)}
    for n_jobs in (1, 2):
        protocol = SubsetRankingProtocol(n_repetitions=3, n_train=[4, 9], m=6, p=5, n_test=12,
                                         passes_mode=["until_separated", "one"], n_jobs=n_jobs)
        rest = pd.concat(protocol.iter_run(GaussianSubsetRanking(), learners, seed=2, skip=skip),
                         ignore_index=True)
        kept = tables[0][~((tables[0].algorithm == "P") & (tables[0].passes_mode == "until_separated"))]
        pd.testing.assert_frame_equal(rest, kept.reset_index(drop=True), check_exact=True)


@pytest.mark.parametrize("value", [0, 1.5, True, "2"])
def test_bad_n_jobs_is_named(value):
    with pytest.raises(ValueError, match="protocol.n_jobs"):
        SubsetRankingProtocol(n_jobs=value)
