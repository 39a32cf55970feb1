"""Memory near the matrix at web scale, checked on small data: LETOR's query-level normalization in place,
the protocol's fold without a second copy, RankNet on float32 X block by block, RankBoost's one-byte bins
(the peak RSS itself is measured by benchmarks/bench_web_scale.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordrank.algorithms.ranking.ranknet as ranknet_module
from ordrank.algorithms.ranking import RankBoost, RankNet
from ordrank.algorithms.ranking.rankboost import _bin_sums, _binned, candidate_thresholds
from ordrank.datasets.mslr_shaped import MslrShaped, mslr_shaped
from ordrank.features import QueryLevelNorm, query_level_norm
from ordrank.protocols.query_folds import per_query


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 7), min_size=1, max_size=8), st.integers(0, 10_000),
       st.sampled_from([np.float32, np.float64]))
def test_query_level_norm_in_place_equals_a_new_array(sizes, seed, dtype):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    X = (rng.normal(size=(len(qid), 4)) * 10.0 ** rng.integers(-3, 7, size=4)).astype(dtype)
    X[:, 1] = 3.0  # a constant column
    expected = query_level_norm(X, qid)
    same = query_level_norm(X, qid, out=X)
    assert same is X and same.dtype == dtype
    assert np.array_equal(X, expected)


def test_query_level_norm_refuses_an_out_it_cannot_write():
    X, qid = np.ones((4, 2), np.float32), np.array([1, 1, 2, 2])
    with pytest.raises(ValueError, match=r"out must be a writable float32 array of shape \(4, 2\), got float64"):
        query_level_norm(X, qid, out=np.empty((4, 2)))
    X.flags.writeable = False
    with pytest.raises(ValueError, match="got a read-only float32 array"):
        query_level_norm(X, qid, out=X)


def test_protocol_rescales_a_fresh_fold_in_place_and_a_shared_one_into_new_arrays():
    data = MslrShaped(scale=0.003)
    fold = data.fold(1)
    raw = {name: getattr(fold, name).X.copy() for name in ("train", "vali", "test")}
    kept = per_query(QueryLevelNorm(), fold)  # not fresh: the fold's arrays untouched
    assert all(np.array_equal(getattr(fold, n).X, raw[n]) for n in raw)
    fresh = data.fold(1)
    assert data.fresh_folds
    done = per_query(QueryLevelNorm(), fresh, in_place=True)
    for name in raw:
        part = getattr(done, name)
        assert part.X is getattr(fresh, name).X and not part.X.flags.writeable  # no second matrix
        assert np.array_equal(part.X, getattr(kept, name).X)  # the same values, bit for bit


def test_while_a_learner_fits_the_validation_and_test_parts_are_not_in_memory():
    """LETOR's protocol keeps a fold's training part while a learner fits; the other two wait on disk."""
    import weakref

    import pandas as pd

    from ordrank.algorithms.ranking import RankSVM
    from ordrank.protocols.query_folds import QueryFolds

    data, alive, seen = MslrShaped(scale=0.003), {}, []

    class Watched:  # the dataset, with a watch on each part's matrix
        n_folds, fresh_folds, evaluation = 1, True, "4.0"

        def fold(self, k):
            fold = data.fold(k)
            alive.update({name: weakref.ref(getattr(fold, name).X) for name in ("train", "vali", "test")})
            return fold

    class Watching(RankSVM):
        def fit(self, X, y, qid=None):
            seen.append({name: ref() is not None for name, ref in alive.items()})
            return super().fit(X, y, qid=qid)

    protocol = QueryFolds(selection="ndcg@10", metrics=["ndcg@10"], grids={"W": {"C": [1e-3, 1e-2]}})
    table = pd.concat(protocol.iter_run(Watched(), {"W": Watching(), "R": RankSVM(C=1e-3)}, QueryLevelNorm()))
    assert seen == [{"train": True, "vali": False, "test": False}] * 2
    assert table.status.eq("ok").all() and len(table) == 2
    plain = pd.concat(protocol.iter_run(data, {"W": RankSVM(), "R": RankSVM(C=1e-3)}, QueryLevelNorm()))
    pd.testing.assert_frame_equal(table, plain)  # the same rows as learners that do not watch


def test_a_fold_on_disk_gives_back_its_parts_byte_for_byte_and_leaves_no_file(tmp_path):
    from ordrank.datasets.letor import Fold
    from ordrank.datasets.letor_file import QuerySet
    from ordrank.protocols.fold_on_disk import FoldOnDisk

    parts = mslr_shaped(0.003, 1)
    parts["vali"] = QuerySet(*(getattr(parts["vali"], a) for a in ("X", "y", "qid")),
                             np.array([f"doc-{i}é" for i in range(len(parts["vali"]))]), tmp_path / "vali.txt")
    fold = Fold("Fold1", parts["train"], parts["vali"], parts["test"], {"train": []})
    with FoldOnDisk(fold) as on_disk:
        folder = on_disk._folder.name
        assert on_disk.load("train") is parts["train"] and on_disk.name == "Fold1" and on_disk.files == {"train": []}
        for name in ("vali", "test"):
            back, given = on_disk.load(name), parts[name]
            for a in ("X", "y", "qid", "docid"):
                value = getattr(back, a)
                assert (value is None) == (getattr(given, a) is None)
                if value is not None:
                    assert value.dtype == getattr(given, a).dtype and np.array_equal(value, getattr(given, a))
                    assert not value.flags.writeable
            assert back.path == given.path
        with pytest.raises(ValueError, match="train, vali and test, not 'valid'"):
            on_disk.load("valid")
    assert not Path(folder).exists()


@pytest.mark.parametrize("hidden", [None, 4])
def test_ranknet_on_float32_in_one_block_is_the_float64_fit(hidden):
    part = mslr_shaped(0.003, seed=2)["train"]
    X = query_level_norm(part.X, part.qid)
    assert len(X) <= ranknet_module.BLOCK
    args = dict(hidden=hidden, max_iter=30, random_state=0)
    a = RankNet(**args).fit(X, part.y, qid=part.qid)
    b = RankNet(**args).fit(X.astype(np.float64), part.y, qid=part.qid)
    coef = (lambda m: m.coef_) if hidden is None else (lambda m: np.r_[m.coefs_[0].ravel(), m.coefs_[1]])
    assert np.array_equal(coef(a), coef(b)) and a.objective_ == b.objective_
    assert np.array_equal(a.decision_function(X), b.decision_function(X.astype(np.float64)))


@pytest.mark.parametrize("hidden", [None, 4])
def test_ranknet_in_blocks_equals_one_block_up_to_rounding(hidden, monkeypatch):
    """Blocks of 100 rows (the objective, gradient and scores summed block by block) against one block."""
    part = mslr_shaped(0.003, seed=2)["train"]
    X = query_level_norm(part.X, part.qid)
    model = RankNet(hidden=hidden, random_state=0)
    model._validate_params()
    from ordrank.algorithms.ranking.ranknet import _PairCost

    cost = _PairCost(part.y.astype(float), part.qid, 1.0, "skip", 1)
    theta = np.random.default_rng(0).normal(size=X.shape[1] * (hidden or 1) + (2 * hidden if hidden else 0))
    whole_value, whole_grad = model._objective(theta, X, cost)
    monkeypatch.setattr(ranknet_module, "BLOCK", 100)
    value, grad = model._objective(theta, X, cost)
    assert np.isclose(value, whole_value, rtol=1e-12)  # sums in another order: equal up to rounding
    assert np.allclose(grad, whole_grad, rtol=1e-10, atol=1e-12 * np.abs(whole_grad).max())
    fitted = RankNet(hidden=hidden, max_iter=20, random_state=0).fit(X, part.y, qid=part.qid)
    scores = fitted.decision_function(X)
    monkeypatch.setattr(ranknet_module, "BLOCK", 1 << 14)
    assert np.allclose(scores, fitted.decision_function(X), rtol=1e-12, atol=1e-12)


def test_rankboost_bins_fit_in_one_byte_and_sum_as_bincount():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 5)).astype(np.float32)
    X[:, 2] = np.round(X[:, 2])  # few distinct values
    thresholds = candidate_thresholds(X, 255)
    codes, offset, first, last = _binned(X, thresholds)
    assert codes.dtype == np.uint8 and codes.shape == X.shape
    for f, t in enumerate(thresholds):
        assert np.array_equal(codes[:, f], np.searchsorted(t, X[:, f], side="left"))
    pi = rng.normal(size=len(X))
    n_bins = int(last[-1]) + 1
    expected = np.bincount((codes + offset).ravel(), np.repeat(pi, X.shape[1]), minlength=n_bins)
    assert np.array_equal(_bin_sums(codes, offset, pi, n_bins), expected)


def test_rankboost_with_every_value_as_threshold_takes_wider_bins():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 2))
    y, qid = rng.integers(0, 3, 600), np.repeat(np.arange(20), 30)
    codes = _binned(X, candidate_thresholds(X))[0]
    assert codes.dtype == np.uint16  # 600 distinct values a feature: more than one byte holds
    model = RankBoost(n_estimators=10).fit(X, y, qid=qid)
    assert model.n_iter_ == 10 and np.isfinite(model.decision_function(X)).all()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 40), st.integers(1, 5), st.sampled_from(["float32", "float64", "int64", "bool"]),
       st.booleans())
def test_external_cache_checksum_reads_the_buffer_and_keeps_the_keys(rows, columns, dtype, fortran):
    """The data checksum over each array's buffer (no copy of a fold's X) is the one over its bytes, so
    the committed external caches' keys still hold."""
    import hashlib

    from ordrank.results.external_cache import data_checksum

    X = (np.random.default_rng(rows).normal(size=(rows, columns)) * 3).astype(dtype)
    X = np.asfortranarray(X) if fortran else X[::-1][::-1]
    arrays = (X, X[1:], np.arange(rows), np.float64(2.5))
    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    assert data_checksum(*arrays) == digest.hexdigest()
