"""Issue 16 beside the bad-input table: what must keep working after the new checks."""
from __future__ import annotations

import warnings

import pytest

from ordrank.datasets.partitions import CHU_KEERTHI, BenchmarkData


def test_the_published_orca_archives_open_without_a_warning(shared_data_dir):
    """Each pinned archive is hashed once when opened (and matches); nothing is warned."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in CHU_KEERTHI:
            for bins in (5, 10):
                assert BenchmarkData(name, bins, "orca", shared_data_dir).n_splits == 20


TINY = ["+experiment=prank_synthetic", "protocol.n_sequences=3", "protocol.n_rounds=300",
        "protocol.record_every=100"]


def interrupted_on_call(module, name, monkeypatch, number):
    """Patch ``module.name`` to raise KeyboardInterrupt on its ``number``-th call (1-based); return
    the list of calls made through it."""
    real, calls = getattr(module, name), []

    def patched(*args, **kwargs):
        calls.append(args)
        if len(calls) == number:
            raise KeyboardInterrupt("stopped by the test")
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, patched)
    return calls


def test_a_single_run_started_again_reuses_its_finished_pieces(tmp_path, monkeypatch):
    """Interrupted on its 3rd learner, a run started again in the same folder with resume=true runs
    only the 3 learners left (not 5), and its table equals an uninterrupted run's."""
    import pandas as pd

    import ordrank.protocols.online as online
    from ordrank.app import run
    from conftest import make_cfg

    fresh = pd.read_parquet(run(make_cfg(TINY), tmp_path / "fresh"))
    interrupted_on_call(online, "run_sequences", monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        run(make_cfg(TINY), tmp_path / "run")
    kept = pd.read_parquet(tmp_path / "run" / "results.partial.parquet")
    assert sorted(kept["algorithm"].unique()) == ["MCP", "PRank"]
    calls = interrupted_on_call(online, "run_sequences", monkeypatch, 0)
    again = pd.read_parquet(run(make_cfg([*TINY, "resume=true"]), tmp_path / "run"))
    assert len(calls) == 3
    pd.testing.assert_frame_equal(again, fresh)
    assert not (tmp_path / "run" / "results.partial.parquet").exists()


def test_pieces_of_another_configuration_are_recomputed(tmp_path, monkeypatch):
    import ordrank.protocols.online as online
    from ordrank.app import run
    from conftest import make_cfg

    interrupted_on_call(online, "run_sequences", monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        run(make_cfg(TINY), tmp_path / "run")
    calls = interrupted_on_call(online, "run_sequences", monkeypatch, 0)
    run(make_cfg([*TINY, "resume=true", "seed=1"]), tmp_path / "run")
    assert len(calls) == 5


def test_a_partition_run_started_again_skips_finished_partitions(tmp_path, monkeypatch):
    """The batch protocol: pieces (learner, partition) kept are not fitted again."""
    import numpy as np
    import pandas as pd

    from ordrank.app import run
    from ordrank.protocols.partitions import TrainTestPartitions
    from conftest import make_cfg
    from test_partitions import make_orca

    make_orca(tmp_path / "data")
    cfg = ["+experiment=svor_benchmark_quick", "dataset.name=pyrim", "dataset.bins=5",
           f"data_dir={tmp_path / 'data'}", "only=[PRank,OrderedLogit]", "protocol.splits=[0,1]",
           "protocol.cv_folds=2"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh = pd.read_parquet(run(make_cfg(cfg), tmp_path / "fresh"))
        interrupted_on_call(TrainTestPartitions, "evaluate", monkeypatch, 3)
        with pytest.raises(KeyboardInterrupt):
            run(make_cfg(cfg), tmp_path / "run")
        calls = interrupted_on_call(TrainTestPartitions, "evaluate", monkeypatch, 0)
        again = pd.read_parquet(run(make_cfg([*cfg, "resume=true"]), tmp_path / "run"))
    assert len(calls) == 2
    timing = again["metric"].isin(["fit_seconds", "cv_seconds"])
    pd.testing.assert_frame_equal(again[~timing].reset_index(drop=True),
                                  fresh[~timing].reset_index(drop=True))
    assert np.array_equal(again["metric"], fresh["metric"])


def test_an_eachmovie_run_started_again_skips_finished_batches(tmp_path, monkeypatch):
    """The collaborative protocol: (learner, batch of targets) pieces kept are not run again."""
    import pandas as pd

    import ordrank.protocols.collaborative as collaborative
    from ordrank.app import run
    from conftest import make_cfg

    cfg = ["+experiment=prank_eachmovie100", "dataset.n_users=3000", "dataset.n_items=300",
           "protocol.min_ratings=40", "protocol.n_targets=6", "protocol.batch_size=3",
           "only=[PRank,WH]"]
    fresh = pd.read_parquet(run(make_cfg(cfg), tmp_path / "fresh"))
    interrupted_on_call(collaborative, "run_sequences", monkeypatch, 3)  # batch 2, PRank
    with pytest.raises(KeyboardInterrupt):
        run(make_cfg(cfg), tmp_path / "run")
    calls = interrupted_on_call(collaborative, "run_sequences", monkeypatch, 0)
    again = pd.read_parquet(run(make_cfg([*cfg, "resume=true"]), tmp_path / "run"))
    assert len(calls) == 2
    pd.testing.assert_frame_equal(again, fresh)
