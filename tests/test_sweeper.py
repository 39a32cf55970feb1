"""The project's sweeper (src/hydra_plugins/ordrank_sweeper): Hydra's basic sweeper, whose up-front
check composes one job per swept value instead of every job of the sweep."""
import itertools
import subprocess
import sys

from hydra_plugins.ordrank_sweeper import covering_jobs

from conftest import REPO


def test_the_covering_jobs_hold_every_swept_value_and_few_jobs():
    names, bins, splits = ["pyrim", "machine", "abalone"], ["5", "10"], [str(s) for s in range(20)]
    batch = [[f"dataset.name={n}", f"dataset.bins={b}", f"protocol.splits={s}", "+experiment=x"]
             for n, b, s in itertools.product(names, bins, splits)]
    sample = covering_jobs(batch)
    assert {o for job in sample for o in job} == {o for job in batch for o in job}
    assert len(sample) <= 3 + 2 + 20 and sample[0] == batch[0] and all(job in batch for job in sample)


def test_the_configs_launch_through_it():
    from hydra import compose, initialize_config_dir
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=["+experiment=svor_benchmark"], return_hydra_config=True)
    assert cfg.hydra.sweeper._target_ == "hydra_plugins.ordrank_sweeper.CoveringCheckSweeper"
    assert "protocol.splits" in cfg.hydra.sweeper.params


def test_a_bad_value_late_in_a_sweep_fails_before_any_job_runs(tmp_path):
    """`protocol=...` names a config group: a misspelled option is a composition error, found by the
    up-front check although it is the sweep's last value (and no job folder is made)."""
    done = subprocess.run([sys.executable, "run.py", "-m", "+experiment=prank_synthetic",
                           "protocol.n_sequences=2", "protocol.n_rounds=40", "seed=0,1,2",
                           "features=poly2,none,no_such_features", f"hydra.sweep.dir={tmp_path}"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "no_such_features" in done.stderr + done.stdout
    assert not any(p.is_dir() for p in tmp_path.iterdir())


def test_a_misspelt_learner_parameter_fails_before_any_job_runs(tmp_path):
    """A learner's parameters are plain overrides (conf/config.yaml leaves ``algorithms`` open), so a
    misspelt one composes: the sweeper's up-front check refuses it, naming the key and the valid ones."""
    done = subprocess.run([sys.executable, "run.py", "-m", "+experiment=prank_synthetic",
                           "protocol.n_sequences=2", "protocol.n_rounds=40", "algorithms.WH.eta=0.01,0.1",
                           "algorithms.WH.normalised=true", f"hydra.sweep.dir={tmp_path}"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert ("error: algorithms.WH.normalised: WidrowHoff has no parameter 'normalised' (did you mean "
            "'normalized'?); its parameters: average, eta, n_epochs, normalized, random_state, shuffle") in done.stderr
    assert not any(p.is_dir() for p in tmp_path.iterdir())
