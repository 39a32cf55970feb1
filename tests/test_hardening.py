"""Beside the bad-input table (tests/bad_inputs_hardening.py): what keeps working under its checks."""
from __future__ import annotations

import re
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
    cfg = ["+experiment=svor_benchmark", "+quick=svor_benchmark", "dataset.name=pyrim", "dataset.bins=5",
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


@pytest.mark.slow  # two runs in subprocesses, about 11 s
def default_sigint():
    """In the child, before exec: SIGINT's default action, so that Python installs its Ctrl-C handler
    even when the test runner was started with SIGINT ignored (e.g. as a background job of a shell
    without job control, which would make the child ignore the test's SIGINT)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow  # two runs in subprocesses, about 9 s
def test_ctrl_c_prints_one_line_saying_what_was_kept_and_the_restart_reuses_it(tmp_path):
    """SIGINT mid-run: exit 130 and one line on stderr (what was kept, where, how to go on; no
    traceback); the command it names finishes the run computing only the pieces left."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import pandas as pd

    from conftest import REPO

    folder = tmp_path / "run"
    command = [sys.executable, "run.py", "+experiment=prank_synthetic", "protocol.n_sequences=40",
               f"hydra.run.dir={folder}"]
    env = {k: v for k, v in os.environ.items() if k != "ORDRANK_DEBUG"}
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=default_sigint)
    deadline = time.monotonic() + 120
    while not (folder / "results.partial.parquet").exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, stderr
    assert re.match(rf"stopped by Ctrl-C: kept: \d+ rows of (\d) finished pieces in results\.partial\.parquet; "
                    rf"see {folder}/ERROR; to reuse them: the same command with resume=true "
                    rf"hydra\.run\.dir={folder}$", stderr.strip()), stderr
    kept = int(re.search(r"of (\d) finished", stderr).group(1))
    again = subprocess.run([*command, "resume=true"], cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0, again.stderr
    assert f"{kept} finished pieces ({kept * 40 * 141} rows) of an earlier attempt kept" in \
        (folder / "run.log").read_text()
    assert pd.read_parquet(folder / "results.parquet")["algorithm"].nunique() == 5


def test_log_lines_go_above_the_progress_bars_during_a_run(tmp_path, monkeypatch):
    """While a run goes on, a console log handler writes through tqdm (tqdm.contrib.logging), so a
    log line never lands in the middle of a bar on stderr; the handler is restored afterwards."""
    import logging
    import sys

    import ordrank.app
    from conftest import make_cfg
    from tqdm.contrib.logging import _TqdmLoggingHandler

    root, console = logging.getLogger(), logging.StreamHandler(sys.stderr)
    seen = []
    monkeypatch.setattr(ordrank.app, "_run", lambda cfg, out, kept: seen.extend(map(type, root.handlers)))
    root.addHandler(console)
    try:
        ordrank.app.run(make_cfg(TINY), tmp_path)
    finally:
        root.removeHandler(console)
    assert _TqdmLoggingHandler in seen and logging.StreamHandler not in seen


@pytest.mark.slow  # a sweep in a subprocess, about 10 s
def test_ctrl_c_of_a_joblib_sweep_leaves_an_error_file_beside_each_interrupted_job(tmp_path):
    """SIGINT to the launching process only (joblib's workers are then killed without unwinding):
    each started job gets an ERROR file saying so, and the sweep's one line says what was kept."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import REPO
    from ordrank.results import sweep_jobs

    sweep = tmp_path / "sweep"
    env = {**{k: v for k, v in os.environ.items() if k != "ORDRANK_DEBUG"}, "ORDRANK_PROGRESS": "0"}
    process = subprocess.Popen(
        [sys.executable, "run.py", "-m", "+experiment=prank_synthetic", "protocol.n_sequences=2",
         "protocol.n_rounds=300000", "protocol.record_every=100000", "only=PRank", "seed=0,1",
         "hydra/launcher=local", "hydra.launcher.n_jobs=2", f"hydra.sweep.dir={sweep}"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_sigint)
    deadline = time.monotonic() + 120
    while len(list(sweep.rglob("run.log"))) < 2:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    time.sleep(1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130
    assert stderr.strip().splitlines()[-1] == (
        f"stopped by Ctrl-C: kept: 0 finished jobs under {sweep}; 2 interrupted jobs have an ERROR file; "
        "the same command with resume=true runs only the unfinished ones")
    jobs = sweep_jobs(sweep)
    assert [job.state for job in jobs] == ["failed", "failed"]
    assert all(job.detail.startswith("KeyboardInterrupt: stopped by Ctrl-C") for job in jobs)


def test_the_notebooks_extra_brings_jupyterlab_and_the_readme_says_how_to_open_them():
    import tomllib

    from conftest import REPO

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("jupyterlab") for req in extras["notebooks"])
    assert "pip install -e '.[notebooks]'" in (REPO / "README.md").read_text()


def test_a_letor_run_started_again_skips_finished_folds(tmp_path, monkeypatch):
    """LETOR's protocol: pieces (learner, fold) kept are not fitted again; same table as a fresh run."""
    import pandas as pd

    import ordrank.protocols.query_folds as query_folds
    from ordrank.app import run
    from conftest import make_cfg
    from test_query_folds import write_subsets

    folder = write_subsets(tmp_path / "data")
    config = ["dataset=letor", f"dataset.path={folder}", "protocol=query_folds", "features=none",
              "protocol.folds=[1,2,3]", "+algorithm@algorithms.Regression=least_squares_ranker",
              "+algorithm@algorithms.LS2=least_squares_ranker", "algorithms.LS2.alpha=1.0"]
    fresh = pd.read_parquet(run(make_cfg(config), tmp_path / "fresh"))
    interrupted_on_call(query_folds, "fit_ranker", monkeypatch, 4)  # on fold 2's second learner
    with pytest.raises(KeyboardInterrupt):
        run(make_cfg(config), tmp_path / "run")
    calls = interrupted_on_call(query_folds, "fit_ranker", monkeypatch, 0)
    again = pd.read_parquet(run(make_cfg([*config, "resume=true"]), tmp_path / "run"))
    assert len(calls) == 3  # fold 2's second learner and fold 3's two
    pd.testing.assert_frame_equal(again, fresh)


def test_a_subset_ranking_run_started_again_skips_finished_pieces(tmp_path, monkeypatch):
    """The subset-ranking protocol: pieces (learner, interpretation, m, p) kept are not trained again."""
    import pandas as pd

    import ordrank.protocols.subset_ranking as subset_ranking
    from ordrank.app import run
    from conftest import make_cfg

    # n_jobs=1: the online pieces run in this process, where the test stops them (with more workers
    # they run in worker processes; test_predtron_speed checks that path skips the same pieces)
    config = ["+experiment=predtron_subset_m", "protocol.n_repetitions=2", "protocol.n_test=10",
              "protocol.m=[4,5]", "protocol.n_train=5", "only=[Predtron-inverse]", "+protocol.n_jobs=1"]
    fresh = pd.read_parquet(run(make_cfg(config), tmp_path / "fresh"))
    pieces = len(subset_ranking.SubsetRankingProtocol.finished_pieces(fresh))
    assert pieces == 4  # 2 interpretations x 2 values of m
    interrupted_on_call(subset_ranking.SubsetRankingProtocol, "_run_chunk", monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        run(make_cfg(config), tmp_path / "run")
    calls = interrupted_on_call(subset_ranking.SubsetRankingProtocol, "_run_chunk", monkeypatch, 0)
    again = pd.read_parquet(run(make_cfg([*config, "resume=true"]), tmp_path / "run"))
    assert len(calls) == 2  # the two pieces left
    pd.testing.assert_frame_equal(again, fresh)
