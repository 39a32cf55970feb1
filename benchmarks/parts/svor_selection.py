"""bench_svor.py's part ``selection``: (a) one SVOR fit by each of ordrank's solvers against skordinal's,
(b) the SVOR benchmark's model selection against scikit-learn's GridSearchCV, (c) that selection with
other solvers, (d) one whole sweep job with and without numpy's huge-page advice. What each line
shows: the script's docstring. The script sets one thread each before numpy loads."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from hydra import compose, initialize_config_dir
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from skordinal.classifiers import SVOR as SkordinalSVOR

from ordrank.algorithms.batch.svor import SVOR
from ordrank.algorithms.pipelines import prefixed_grid
from ordrank.algorithms.qp import cache
from ordrank.app import build
from ordrank.datasets.quantile_ranks import quantile_ranks
from ordrank.metrics.ordinal import SCORINGS, mean_absolute_error, mean_zero_one_error

ROOT = Path(__file__).resolve().parents[2]

def timed(run):
    cache.clear_cache()
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def one_fit(sizes, repeats, Cs=(1.0,), variants=("implicit",)):
    def ours(solver):
        return lambda X, y, C, v: SVOR(v, C=C, gamma=0.1, tol=1e-3, solver=solver).fit(X, y)

    fits = {"ordrank auto": ours("auto"), "ordrank CLARABEL": ours("CLARABEL"),
            "ordrank IPM": ours("IPM"), "ordrank SMO": ours("SMO"),
            "skordinal": lambda X, y, C, v: SkordinalSVOR(C=C, gamma=0.1, tol=1e-3,
                                                          constraints=v).fit(X, y)}
    SVOR(solver="SMO").fit(*quantile_ranks(30))  # numba's compiled code loaded
    for variant in variants:
        for C in Cs:
            print(f"(a) SVOR {variant}, rbf, C={C:g}, gamma=0.1, tol=1e-3, one thread, best of "
                  f"{repeats} alternating (wall s / CPU s)")
            for n in sizes:
                X, y = quantile_ranks(n)
                best, models = {name: (np.inf, np.inf) for name in fits}, {}
                for _ in range(repeats):
                    for name, fit in fits.items():
                        models[name], wall, cpu = timed(lambda: fit(X, y, C, variant))
                        best[name] = min(best[name], (wall, cpu))
                theirs = models["skordinal"].predict(X)
                line = [f"  n={n:5d}  skordinal {best['skordinal'][0]:6.2f} / "
                        f"{best['skordinal'][1]:6.2f}"]
                for name in ("ordrank auto", "ordrank CLARABEL", "ordrank IPM", "ordrank SMO"):
                    wall, cpu = best[name]
                    ran = f" [{models[name].solver_}]" if name == "ordrank auto" else ""
                    line.append(f"{name}{ran} {wall:6.2f} / {cpu:6.2f} (ratio "
                                f"{wall / best['skordinal'][0]:4.2f}, equal predictions "
                                f"{np.mean(models[name].predict(X) == theirs):.4f})")
                print("  ".join(line), flush=True)


def job(dataset, bins, split, learners, data_dir):
    with initialize_config_dir(str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=[
            "+experiment=svor_benchmark", f"data_dir={data_dir}", f"dataset.name={dataset}", f"dataset.bins={bins}",
            f"protocol.splits={split}", f"only=[{','.join(learners)}]"])
    parts = build(cfg)
    protocol = parts["protocol"]
    X_train, y_train, X_test, y_test = parts["dataset"].split(split)
    folds = StratifiedKFold(protocol.cv_folds, shuffle=True, random_state=np.random.SeedSequence(
        [cfg.seed, split]).generate_state(1)[0])
    return protocol, parts["learners"], folds, (X_train, y_train, X_test, y_test)


def old_select(protocol, learner, grid, folds, X, y):
    """``TrainTestPartitions.select`` before this change: GridSearchCV, candidate-major."""
    search = GridSearchCV(clone(learner), prefixed_grid(learner, grid), cv=folds, refit=False,
                          scoring=make_scorer(SCORINGS[protocol.scoring], greater_is_better=False),
                          error_score=np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitFailedWarning)
        warnings.filterwarnings("ignore", message="The least populated class")
        warnings.filterwarnings("ignore", message="One or more of the test scores are non-finite")
        search.fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    return search.cv_results_["params"][int(np.nanargmax(scores))], scores


def new_select(protocol, learner, grid, folds, X, y):
    """``select`` now, and the mean CV scores it compared (recomputed from its fits' record)."""
    record = []
    original = np.average

    def recording(a, *args, **kwargs):
        record.append(np.array(a))
        return original(a, *args, **kwargs)

    np.average = recording  # the scores select averages, to compare them with GridSearchCV's
    try:
        params = protocol.select(learner, grid, folds, X, y)
    finally:
        np.average = original
    return params, np.average(record[-1], axis=1)


def grid_search(dataset, bins, split, learners, repeats, data_dir):
    protocol, models, folds, (X, y, X_test, y_test) = job(dataset, bins, split, learners, data_dir)
    print(f"(b) model selection on {dataset}, {bins} bins, partition {split} ({len(X)} training "
          f"rows, {protocol.cv_folds} folds), best of {repeats} alternating (wall s / CPU s)")
    totals = {"before": [0.0, 0.0], "after": [0.0, 0.0]}
    for name in learners:
        grid = protocol.grids[name]
        best, out = {}, {}
        for _ in range(repeats):
            for label, select in (("before", old_select), ("after", new_select)):
                out[label], wall, cpu = timed(
                    lambda: select(protocol, models[name], grid, folds, X, y))
                best[label] = min(best.get(label, (np.inf, np.inf)), (wall, cpu))
        mae = {label: mean_absolute_error(y_test, clone(models[name]).set_params(
            **out[label][0]).fit(X, y).predict(X_test)) for label in out}
        same_scores = np.array_equal(out["before"][1], out["after"][1], equal_nan=True)
        for label in totals:
            totals[label] = [t + b for t, b in zip(totals[label], best[label])]
        print(f"  {name:14s} before {best['before'][0]:6.2f} / {best['before'][1]:6.2f}  after "
              f"{best['after'][0]:6.2f} / {best['after'][1]:6.2f}  (CPU x"
              f"{best['before'][1] / best['after'][1]:4.2f})  chosen {out['after'][0]} "
              f"same: {out['before'][0] == out['after'][0]}  CV scores identical: {same_scores}  "
              f"test MAE {mae['after']:.6f} identical: {mae['before'] == mae['after']}")
    print(f"  {'all':14s} before {totals['before'][0]:6.2f} / {totals['before'][1]:6.2f}  after "
          f"{totals['after'][0]:6.2f} / {totals['after'][1]:6.2f}")


def solver_selection(dataset, bins, splits, learners, solvers, data_dir):
    """The configured solver (conf/algorithm/svorim.yaml) against each of ``solvers`` in
    model selection, select's order (after)."""
    print(f"(c) SVOR's model selection with the configured solver and with {', '.join(solvers)} on "
          f"{dataset}, {bins} bins (wall s / CPU s; select, then the refit's test errors)")
    for split in splits:
        protocol, models, folds, (X, y, X_test, y_test) = job(dataset, bins, split, learners, data_dir)
        for name in learners:
            if name not in ("SVORIM", "SVOREX"):
                continue
            line = []
            configured = models[name].get_params()["svor__solver"]
            for label, model in ((f"configured ({configured})", models[name]),
                                 *((solver, clone(models[name]).set_params(svor__solver=solver))
                                   for solver in solvers)):
                params, wall, cpu = timed(
                    lambda: protocol.select(model, protocol.grids[name], folds, X, y))
                predicted = clone(model).set_params(**params).fit(X, y).predict(X_test)
                line.append(f"{label} {wall:6.2f} / {cpu:6.2f} {params} MAE "
                            f"{mean_absolute_error(y_test, predicted):.6f} zero-one "
                            f"{mean_zero_one_error(y_test, predicted):.6f}")
            print(f"  split {split} {name:7s} " + "  |  ".join(line))


def huge_pages(dataset, bins, split, repeats, data_dir):
    """One whole job of svor_benchmark (``run.py``, every ordrank learner; the external learners from the
    committed external cache) with numpy's transparent-huge-page advice on and off, alternating."""
    print(f"(d) one svor_benchmark job ({dataset}, {bins} bins, partition {split}; run.py, one "
          f"thread), NUMPY_MADVISE_HUGEPAGE=1 against 0, best of {repeats} (wall / user / system s)")
    best, tables = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(repeats):
            for flag in ("1", "0"):  # a fresh run directory each time: a job resumes its own
                before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
                subprocess.run([sys.executable, str(ROOT / "run.py"), "+experiment=svor_benchmark",
                                f"dataset.name={dataset}", f"dataset.bins={bins}",
                                f"protocol.splits={split}", f"hydra.run.dir={tmp}/{flag}{repeat}",
                                f"data_dir={data_dir}", f"results_dir={ROOT / 'results'}"], check=True, cwd=ROOT,
                               env={**os.environ, "NUMPY_MADVISE_HUGEPAGE": flag},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - start
                times = (wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime)
                best[flag] = min(best.get(flag, times), times)
                tables[flag] = pd.read_parquet(f"{tmp}/{flag}{repeat}/results.parquet")
    for flag, label in (("1", "huge pages advised (numpy's default)"), ("0", "not advised (run.py's default)")):
        print(f"  {label:38s} {best[flag][0]:6.2f} / {best[flag][1]:6.2f} / {best[flag][2]:6.2f}")
    print(f"  wall x{best['1'][0] / best['0'][0]:4.2f}; results tables identical: "
          f"{tables['1'].equals(tables['0'])}")
