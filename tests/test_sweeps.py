"""Sweeps that scale out (joblib, submitit), resume after a kill, report failures; runs that keep
finished work when they fail or are stopped (SIGINT, SIGTERM).

The subprocess tests are few and small: Hydra starts in about 2-3 s each.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

import ordrank.protocols.online
from ordrank.app import build, run
from ordrank.results import ERROR, FINISHED, duplicate_key_columns, finalize, main as results_main, \
    partial_path, read_table

from conftest import REPO, make_cfg
TINY = ["+experiment=prank_synthetic", "protocol.n_sequences=2", "protocol.n_rounds=60",
        "protocol.record_every=20"]
POINTS = [(seed, name) for seed in (0, 1) for name in ("PRank", "MCP")]  # seed=0,1 x only=PRank,MCP


def start(log, *overrides, multirun=True, **popen):
    """``python run.py [-m] overrides`` in the background, its output in the file ``log``."""
    command = [sys.executable, "run.py", *(["-m"] if multirun else []), *overrides]
    env = {**os.environ, "HYDRA_FULL_ERROR": "1", "ORDRANK_PROGRESS": "0"}
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, **popen)
    process.log = log
    return process


def finish(process, timeout=300):
    process.wait(timeout=timeout)
    return process.returncode, Path(process.log).read_text()


def collect(folder, out, capsys):
    capsys.readouterr()
    code = results_main(["collect", str(folder), "-o", str(out)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def sort(table):
    return table.sort_values(duplicate_key_columns(table), ignore_index=True)


def job_dirs(folder):
    return sorted(p.parent.relative_to(folder).as_posix() for p in folder.rglob(".hydra"))


def wait_for(predicate, process, timeout=120):
    deadline = time.monotonic() + timeout
    while not predicate():
        if process.poll() is not None:
            raise AssertionError(f"process ended first:\n{Path(process.log).read_text()[-3000:]}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError("timed out")
        time.sleep(0.05)


@pytest.mark.slow  # two sweeps of 4 jobs in subprocesses: 10-15 s each
@pytest.mark.parametrize("launcher", ["local", "local_submitit"])
def test_parallel_sweep_gives_the_rows_of_sequential_runs(tmp_path, capsys, launcher):
    """joblib and submitit's local executor: same rows as the jobs run one by one in this process;
    one folder per sweep point named by its overrides (not by time, launcher or job number)."""
    sweep = tmp_path / "sweep"
    code, output = finish(start(tmp_path / "log", *TINY, "seed=0,1", "only=PRank,MCP", f"hydra/launcher={launcher}",
                                "hydra.launcher.n_jobs=2" if launcher == "local" else "hydra.launcher.timeout_min=5",
                                f"hydra.sweep.dir={sweep}"))
    assert code == 0, output[-3000:]
    assert job_dirs(sweep) == sorted(f"only={name},protocol.n_rounds=60,protocol.n_sequences=2,"
                                     f"protocol.record_every=20,seed={seed}" for seed, name in POINTS)
    code, report = collect(sweep, tmp_path / "all.parquet", capsys)
    assert code == 0, report
    merged = pd.read_parquet(tmp_path / "all.parquet")
    one_by_one = pd.concat([read_table(run(make_cfg([*TINY, f"seed={seed}", f"only={name}"]),
                                           tmp_path / "seq" / f"{seed}{name}")) for seed, name in POINTS])
    pd.testing.assert_frame_equal(sort(merged), sort(one_by_one), check_exact=True)
    assert len(merged) == 4 * 2 * 4  # jobs x sequences x recorded steps, each row once
    assert not list(sweep.rglob("%j"))  # submitit's local executor left no literal `%j` folder


@pytest.mark.slow  # a sweep killed, collected and resumed in subprocesses: about 15 s
def test_killed_sweep_resumes_only_the_rest(tmp_path, capsys):
    """Kill a sweep (SIGKILL, nothing cleaned up) after its first job; the collector reports the
    killed and never-started jobs and fails; started again with resume=true only those run."""
    sweep = tmp_path / "sweep"
    args = ["+experiment=prank_synthetic", "protocol.n_sequences=2", "protocol.n_rounds=60000",
            "protocol.record_every=20000", "only=PRank", "seed=0,1,2", f"hydra.sweep.dir={sweep}"]
    process = start(tmp_path / "log1", *args, start_new_session=True)  # each job takes about 2 s
    wait_for(lambda: any(sweep.rglob(FINISHED)), process)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=60)
    done = sorted(p.parent for p in sweep.rglob(FINISHED))
    # the kill follows the first FINISHED marker; on a loaded machine (pytest-xdist's other worker)
    # the next job may finish before it lands, so one or two of the three are done
    assert done and len(done) < 3 and done[0].name == (
        "only=PRank,protocol.n_rounds=60000,protocol.n_sequences=2,protocol.record_every=20000,seed=0")
    code, report = collect(sweep, tmp_path / "part.parquet", capsys)
    assert code == 1 and f"missing jobs ({3 - len(done)})" in report, report
    assert len(done) > 1 or "never started" in report, report
    assert len(pd.read_parquet(tmp_path / "part.parquet")) == len(done) * 2 * 4  # finished: merged
    stamps = [(job / "results.parquet").stat().st_mtime_ns for job in done]

    code, output = finish(start(tmp_path / "log2", *args, "resume=true"))
    assert code == 0, output[-3000:]
    assert output.count("kept (resume=true)") == len(done)
    assert [(job / "results.parquet").stat().st_mtime_ns for job in done] == stamps  # not run again
    code, report = collect(sweep, tmp_path / "all.parquet", capsys)
    assert code == 0, report
    merged = pd.read_parquet(tmp_path / "all.parquet")
    assert len(merged) == 3 * 2 * 4 and sorted(merged["config.seed"].unique()) == [0, 1, 2]


def test_failing_sweep_point_is_recorded_and_reported(tmp_path, capsys):
    sweep = tmp_path / "sweep"
    code, output = finish(start(tmp_path / "log", *TINY, "protocol.n_rounds=60,0", "only=PRank",
                                f"hydra.sweep.dir={sweep}"))
    assert code != 0
    bad = sweep / "only=PRank,protocol.n_rounds=0,protocol.n_sequences=2,protocol.record_every=20"
    lines = (bad / ERROR).read_text().splitlines()
    assert lines[0] == "ValueError: protocol.n_rounds must be a positive integer, got 0"
    assert lines[1].startswith("overrides: ") and "protocol.n_rounds=0" in lines[1]
    assert "Traceback (most recent call last):" in lines
    assert not (bad / FINISHED).exists() and not (bad / "results.parquet").exists()
    code, report = collect(sweep, tmp_path / "all.parquet", capsys)
    assert code == 1, report
    assert "failed jobs (1)" in report and "got 0" in report and "missing jobs" not in report
    assert len(pd.read_parquet(tmp_path / "all.parquet")) == 2 * 4  # the good point's rows


EACHMOVIE = ["+experiment=prank_eachmovie100", "dataset.n_users=20000", "dataset.n_items=600",
             "protocol.n_targets=1000", "protocol.batch_size=20"]


def test_interrupted_eachmovie_run_keeps_its_finished_batches(tmp_path):
    """Ctrl-C (SIGINT) during a run of several seconds: the finished batches of every learner stay,
    as the partial table, with the very rows an uninterrupted run gives them; no FINISHED marker."""
    folder = tmp_path / "run"
    partial = partial_path(folder / "results.parquet")
    process = start(tmp_path / "log", *EACHMOVIE, f"hydra.run.dir={folder}", multirun=False,
                    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    wait_for(partial.exists, process)  # written after the first finished piece
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    code, output = finish(process, timeout=60)
    assert code == 130 and "stopped by Ctrl-C: kept: " in output, output[-3000:]  # one line, no traceback
    assert not (folder / FINISHED).exists() and not (folder / "results.parquet").exists()
    kept = read_table(partial)
    assert 1 <= kept.seed.nunique() < 1000, "interrupted before the end"
    assert (folder / ERROR).read_text().startswith("KeyboardInterrupt")

    cfg = make_cfg([*EACHMOVIE])  # the same pieces, uninterrupted, as far as the partial table goes
    parts = build(cfg)
    pieces, rows = [], 0
    for piece in parts["protocol"].iter_run(parts["dataset"], parts["learners"], seed=cfg.seed):
        pieces.append(piece)
        rows += len(piece)
        if rows >= len(kept):
            break
    expected = finalize(pd.concat(pieces, ignore_index=True), cfg.experiment, cfg.dataset.name, {},
                        keys=parts["protocol"].keys)
    pd.testing.assert_frame_equal(kept.drop(columns=kept.filter(like="config.").columns), expected,
                                  check_exact=True)


def failing_after_first_piece(action):
    """Replace OnlineSequences.iter_run: yield the first learner's table, then ``action()``."""
    original = ordrank.protocols.online.OnlineSequences.iter_run

    def iter_run(self, *args, **kwargs):
        pieces = original(self, *args, **kwargs)
        yield next(pieces)
        action()
        yield from pieces
    return iter_run


def boom():
    raise RuntimeError("boom: the solver gave up")


def terminate():
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)  # the handler raises before this ends


@pytest.mark.parametrize("action, first_line", [
    (boom, "RuntimeError: boom: the solver gave up"),
    (terminate, "KeyboardInterrupt: stopped by SIGTERM"),
])
def test_failed_or_stopped_run_keeps_its_pieces_and_a_rerun_clears_the_error(
        tmp_path, monkeypatch, action, first_line):
    cfg = make_cfg([*TINY, "resume=true"])
    handler = signal.getsignal(signal.SIGTERM)
    with monkeypatch.context() as patch:
        patch.setattr(ordrank.protocols.online.OnlineSequences, "iter_run", failing_after_first_piece(action))
        with pytest.raises((RuntimeError, KeyboardInterrupt)):
            run(cfg, tmp_path)
    assert signal.getsignal(signal.SIGTERM) is handler  # restored
    error = (tmp_path / ERROR).read_text().splitlines()
    assert error[0] == first_line
    assert error[2] == "kept: 8 rows of 1 finished pieces in results.partial.parquet"
    kept = read_table(tmp_path / "results.partial.parquet")
    assert set(kept.algorithm) == {"PRank"} and len(kept) == 2 * 4
    assert sorted(p.name for p in tmp_path.iterdir()) == [ERROR, "results.partial.parquet"]

    path = run(cfg, tmp_path)  # started again: runs, and the stale ERROR and partial table go
    assert sorted(p.name for p in tmp_path.iterdir()) == [FINISHED, "results.parquet"]
    table = read_table(path)
    pd.testing.assert_frame_equal(table[table.algorithm == "PRank"].reset_index(drop=True), kept,
                                  check_exact=True)


def test_resume_tells_apart_runs_of_other_algorithms(tmp_path):
    """``only`` is not a config column (it picks rows), but it does decide whether a table is finished."""
    first = run(make_cfg([*TINY, "resume=true", "only=PRank"]), tmp_path)
    assert set(read_table(first).algorithm) == {"PRank"}
    again = run(make_cfg([*TINY, "resume=true", "only=MCP"]), tmp_path)
    assert set(read_table(again).algorithm) == {"MCP"}
    stamp = again.stat().st_mtime_ns
    assert run(make_cfg([*TINY, "resume=true", "only=MCP"]), tmp_path).stat().st_mtime_ns == stamp


def test_sweep_folder_is_deterministic():
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        hydra = OmegaConf.to_container(compose("config", overrides=TINY, return_hydra_config=True).hydra)
    assert hydra["sweep"] == {"dir": "multirun/${experiment}", "subdir": "${hydra.job.override_dirname}"}
    excluded = hydra["job"]["config"]["override_dirname"]["exclude_keys"]
    assert {"experiment", "resume", "data_dir"} <= set(excluded)
    assert "only" not in excluded and "seed" not in excluded  # they change the rows


@pytest.mark.parametrize("launcher, target", [
    ("local", "JoblibLauncher"), ("local_submitit", "LocalLauncher"), ("slurm", "SlurmLauncher")])
def test_launcher_configs_compose(launcher, target, monkeypatch):
    monkeypatch.setenv("ORDRANK_JOBS", "3")
    monkeypatch.setenv("ORDRANK_SLURM_PARTITION", "cpu")
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=[*TINY, f"hydra/launcher={launcher}"], return_hydra_config=True)
    chosen = cfg.hydra.launcher
    assert chosen._target_.endswith(target)
    if launcher == "local":
        assert chosen.n_jobs == 3
    if launcher == "slurm":
        assert chosen.partition == "cpu" and chosen.setup[0] == "export OMP_NUM_THREADS=2"
