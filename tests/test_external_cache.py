"""The external cache (ordrank.results.external_cache): which learners are external, what their key covers, how a run
uses the cache (cached / rerun), how a sweep's collector merges the jobs' pieces, and on the real
data: a sample of external learners rerun equals the committed cache, and a job served by the cache writes the
same results table, byte for byte, as a rerun and as the committed sweep."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from conftest import REPO, make_cfg
from ordrank.results import external_cache
from ordrank.results.external_cache import ExternalCache, data_checksum, merge, external_package, piece_key, same_rows
from ordrank.results import read_table, read_timings, write_table

mord = pytest.importorskip("mord")
skordinal = pytest.importorskip("skordinal.classifiers")

RNG = np.random.default_rng(0)
DATA = (RNG.normal(size=(12, 3)), RNG.integers(1, 4, 12), RNG.normal(size=(5, 3)), RNG.integers(1, 4, 5))
SETTINGS = {"protocol": "TrainTestPartitions", "cv_folds": 3, "scoring": "mae", "seed": 0, "split": 0}


def rows(value=0.5, seconds=1.0):
    return [("mae", value, '{"alpha": 1.0}', "ok"), ("zero_one", value, '{"alpha": 1.0}', "ok"),
            ("fit_seconds", seconds, '{"alpha": 1.0}', "ok"), ("cv_seconds", seconds, '{"alpha": 1.0}', "ok")]



def _key(learner, grid, settings, data):
    return piece_key(learner, grid, settings, lambda: data_checksum(*data))

def test_the_external_rule():
    from ordrank.algorithms.batch.svor import SVOR
    from ordrank.algorithms.ranking import LightGBMRanker, XGBoostRanker

    assert external_package(mord.LogisticAT()).startswith("mord==")
    assert external_package(make_pipeline(StandardScaler(), skordinal.SVOR())).startswith("skordinal==")
    assert external_package(LightGBMRanker()).startswith("lightgbm==")
    assert external_package(XGBoostRanker()).startswith("xgboost")  # the distribution: xgboost or xgboost-cpu
    assert external_package(SVOR()) is None and external_package(make_pipeline(StandardScaler(), SVOR())) is None


@given(st.sampled_from(["version", "params", "grid", "seed", "split", "data"]))
def test_the_key_changes_with_what_decides_the_piece(what):
    learner, grid, settings, data = mord.LogisticAT(), {"alpha": [0.1, 1.0]}, dict(SETTINGS), list(DATA)
    key, package = _key(learner, grid, settings, data)
    assert _key(mord.LogisticAT(), {"alpha": [0.1, 1.0]}, dict(SETTINGS), list(DATA)) == (key, package)
    if what == "version":
        version = package.split("==")[1]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(external_cache, "_distribution", lambda module: f"{module}=={version}.post1")
            changed = _key(learner, grid, settings, data)
    else:
        if what == "params":
            learner = mord.LogisticAT(alpha=2.0)
        elif what == "grid":
            grid = {"alpha": [0.1, 10.0]}
        elif what in ("seed", "split"):
            settings[what] = 1
        else:
            data[2] = data[2].copy()
            data[2][0, 0] += 1e-12
        changed = _key(learner, grid, settings, data)
    assert changed[0] != key


def test_cached_serves_rerun_computes_and_compares(tmp_path, caplog):
    key = _key(mord.LogisticAT(), {}, SETTINGS, DATA)
    committed = tmp_path / "results" / "exp" / external_cache.FILE
    write_table(external_cache.cache_table([pd.DataFrame(rows(), columns=external_cache.ROW_COLUMNS).assign(
        cache_key=key[0], package=key[1], piece="{}")]), committed)
    calls = []

    def compute(value=0.5):
        calls.append(value)
        return rows(value, seconds=9.0)

    cached = ExternalCache(committed, tmp_path / "job" / external_cache.FILE, "cached")
    assert cached.rows(key, {"split": 0}, compute) == rows() and calls == []  # timings too: the cache's
    assert cached.rows(None, {}, compute) == rows(seconds=9.0) and calls == [0.5]  # not an external learner: computed
    rerun = ExternalCache(committed, tmp_path / "rerun" / external_cache.FILE, "rerun")
    assert rerun.rows(key, {"split": 0}, compute) == rows(seconds=9.0) and len(calls) == 2
    assert rerun.differ == 0
    rerun.rows(key, {"split": 0}, lambda: compute(0.75))
    assert rerun.differ == 1 and "differ from the cache" in caplog.text
    with pytest.raises(ValueError, match="external must be one of cached, rerun, got 'sometimes'"):
        ExternalCache(committed, None, "sometimes")


def test_collect_merges_the_computed_pieces(tmp_path):
    key_a = _key(mord.LogisticAT(), {}, SETTINGS, DATA)
    key_b = _key(mord.LogisticAT(alpha=2.0), {}, SETTINGS, DATA)
    committed = tmp_path / "results" / external_cache.FILE
    write_table(external_cache.cache_table([pd.DataFrame(rows(), columns=external_cache.ROW_COLUMNS).assign(
        cache_key=key_a[0], package=key_a[1], piece="{}")]), committed)
    job = ExternalCache(committed, tmp_path / "job" / external_cache.FILE)
    job.rows(key_a, {"split": 0}, lambda: pytest.fail("served by the cache"))
    job.rows(key_b, {"split": 0}, lambda: rows(0.25))
    job.write("exp")
    summary = merge([job.job_file], tmp_path / "results" / "benchmark.parquet")
    assert "1 external learner pieces (4 rows) from the external cache, 1 computed; 1 added" in summary
    cache = read_table(committed)
    assert list(cache.columns) == ["cache_key", "package", "piece", *external_cache.ROW_COLUMNS]
    assert set(cache["cache_key"]) == {key_a[0], key_b[0]} and len(cache) == 8


EXTERNAL = ["mord-LogisticAT", "skordinal-REDSVM"]


@pytest.mark.slow  # two fits of two external learners and PRank: about 10 s of CPU
def test_a_sample_of_external_rerun_equals_the_cache_and_the_cache_the_committed_job(tmp_path, shared_data_dir):
    """CI's check of the committed cache: mord-LogisticAT and skordinal-REDSVM on svor_benchmark's
    pyrim, 10 ranks, partition 0, fitted again (external=rerun) give the cache's rows (timings aside);
    served by the cache (external=cached), the job writes the same results table byte for byte, equal
    to the committed sweep's rows, and the cached external learners' timings are the committed ones."""
    from ordrank.app import run

    def job(mode):
        cfg = make_cfg(["+experiment=svor_benchmark", "dataset.name=pyrim", "dataset.bins=10",
                        "protocol.splits=0", f"only=[PRank,{','.join(EXTERNAL)}]", f"external={mode}",
                        f"results_dir={REPO / 'results'}", f"data_dir={shared_data_dir}"])
        return run(cfg, tmp_path / mode)

    cache = read_table(REPO / "results" / "svor_benchmark" / external_cache.FILE)
    rerun = job("rerun")
    used = read_table(rerun.parent / external_cache.FILE)
    assert len(used) == 8 and not used["from_cache"].any()
    for key, piece in used.groupby("cache_key"):
        assert key in set(cache["cache_key"]), "the rerun's piece has no entry in the committed cache"
        assert same_rows(piece, cache[cache["cache_key"] == key])
    cached = job("cached")
    assert read_table(cached.parent / external_cache.FILE)["from_cache"].all()
    assert cached.read_bytes() == rerun.read_bytes()

    committed = REPO / "results" / "svor_benchmark" / "benchmark.parquet"
    for read in (read_table, read_timings):
        mine, ref = read(cached), read(committed)
        ref = ref[(ref["dataset"] == "pyrim") & (ref["bins"] == 10) & (ref["split"] == 0)
                  & ref["algorithm"].isin(["PRank", *EXTERNAL])][mine.columns].reset_index(drop=True)
        if read is read_table:
            pd.testing.assert_frame_equal(mine, ref)
        else:  # measured seconds: the cached external learners' are the committed ones, PRank's measured again
            external = mine["algorithm"].isin(EXTERNAL)
            pd.testing.assert_frame_equal(mine[external], ref[external.to_numpy()])


def test_letor_protocol_serves_a_external_from_the_cache(tmp_path):
    """QueryFolds (LETOR) uses the same cache: a LightGBM piece run once, merged, then served."""
    pytest.importorskip("lightgbm")
    from test_query_folds import N_FEATURES, write_subsets

    from ordrank.algorithms.ranking import LightGBMRanker
    from ordrank.datasets.letor import LetorData
    from ordrank.protocols.query_folds import QueryFolds

    data = LetorData(path=str(write_subsets(tmp_path)), n_features=N_FEATURES)
    learners = {"LambdaMART": LightGBMRanker(n_estimators=5, min_child_samples=2)}
    protocol = QueryFolds(folds=[1], metrics=["letor_map", "ndcg@10"])
    cache = tmp_path / "results" / external_cache.FILE
    tables = []
    for mode in ("first", "cached"):
        protocol.external_cache = ExternalCache(cache, tmp_path / mode / external_cache.FILE)
        tables.append(pd.concat(protocol.iter_run(data, learners), ignore_index=True))
        protocol.external_cache.write()
        merge([tmp_path / mode / external_cache.FILE], cache)
    assert protocol.external_cache.hits == 1 and protocol.external_cache.computed == 0
    pd.testing.assert_frame_equal(tables[0], tables[1])
    assert read_table(cache)["package"].iloc[0].startswith("lightgbm==")


def test_an_unreadable_cache_is_named(tmp_path):
    broken = tmp_path / external_cache.FILE
    broken.write_bytes(b"not parquet")
    with pytest.raises(ValueError, match=f"external cache {broken} cannot be read"):
        ExternalCache(broken, None)
    write_table(pd.DataFrame({"metric": ["mae"], "value": [1.0]}), broken)  # not a cache's columns
    with pytest.raises(ValueError, match="cannot be read .*cache_key"):
        ExternalCache(broken, None)


def test_a_cache_of_the_former_name_is_read(tmp_path):
    """A results folder or job folder made before the rename holds ``peer_cache.parquet``: it is read,
    and the new name wins when both are there."""
    rows = pd.DataFrame({"cache_key": ["k"], "package": ["p==1"], "piece": ["{}"], "metric": ["mae"],
                         "value": [0.5], "params": ["{}"], "status": ["ok"]})
    former = write_table(rows, tmp_path / external_cache.FORMER_FILE)
    assert external_cache.located(tmp_path / external_cache.FILE) == former
    assert ExternalCache(tmp_path / external_cache.FILE, None).committed == former
    assert list(ExternalCache(tmp_path / external_cache.FILE, None).index) == ["k"]
    current = write_table(rows.assign(cache_key="j"), tmp_path / external_cache.FILE)
    assert external_cache.located(current) == current
