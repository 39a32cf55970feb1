"""bench_svor.py's part ``papers-sizes``: SVORIM (or Reduction-SVM) at the papers' training sizes,
ordrank's against skordinal's, same fits. What each line shows: the script's docstring."""
from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path

import numpy as np
from omegaconf import OmegaConf
from skordinal.classifiers import REDSVM as SkordinalREDSVM, SVOR as SkordinalSVOR
from sklearn.preprocessing import StandardScaler

from ordrank.algorithms.batch.reduction import ReductionSVM
from ordrank.algorithms.batch.svor import SVOR
from ordrank.datasets.partitions import BenchmarkData
from ordrank.metrics.ordinal import mean_absolute_error, mean_zero_one_error

# the experiment's own sizes and redraw (seed, number of splits), read from its config
CONFIG = OmegaConf.load(Path(__file__).resolve().parents[2] / "conf" / "experiment" / "svor_benchmark"
                        / "papers_sizes.yaml")
SIZES = dict(CONFIG.train_sizes)
IMPLEMENTATIONS = ["ordrank-SMO", "ordrank-QP", "ordrank-LIBSVM", "skordinal"]


def timed(fit):
    wall, cpu = time.perf_counter(), time.process_time()
    model = fit()
    return model, time.perf_counter() - wall, time.process_time() - cpu


def svor_fits(args, data_dir):
    """SVOR on each of ``args.sets``: skordinal once, ordrank's implementations once per jitter value."""
    print(f"SVOR {args.constraints}, {args.bins} bins, C={args.C:g}, gamma={args.gamma:g}, redrawn split {args.split}, "
          f"ordrank's diagonal_jitter={', '.join(f'{j:g}' for j in args.diagonal_jitter)} "
          f"(load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    skordinal = partial(SkordinalSVOR, C=args.C, gamma=args.gamma, kernel="rbf", constraints=args.constraints, tol=1e-3)
    runs = []  # (label, learner): skordinal once, ordrank's learners once per jitter value
    for label in args.implementations:
        if label == "skordinal":
            runs.append((label, skordinal))
            continue
        for jitter in args.diagonal_jitter:
            svor = partial(SVOR, args.constraints, C=args.C, gamma=args.gamma, diagonal_jitter=jitter)
            suffix = f"+J{jitter:g}" if len(args.diagonal_jitter) > 1 else ""
            runs.append((label + suffix, partial(svor, solver="SMO") if label == "ordrank-SMO" else svor))
    width = max(12, *(len(label) + 1 for label, _ in runs))
    print_header(width)
    for name in args.sets:
        data, predictions = split_of(name, args.bins, data_dir, args.split), {}
        for label, make in runs:
            fit_and_print(name, label, make, data, predictions, width=width)


def split_of(name, bins, data_dir, split=0):
    """The standardized redrawn partition ``split`` of ``name`` at the experiment's size."""
    data = BenchmarkData(name, bins, "orca", data_dir,
                         redraw={"train_size": SIZES[name], "n_splits": CONFIG.dataset.redraw.n_splits,
                                 "seed": CONFIG.dataset.redraw.seed})
    X, y, X_test, y_test = data.split(split)
    scaler = StandardScaler().fit(X)
    return scaler.transform(X), y, scaler.transform(X_test), y_test


def reduction_fits(args, data_dir):
    """Reduction-SVM on each of ``args.sets``: ordrank's SMO and LIBSVM, skordinal's REDSVM."""
    print(f"Reduction-SVM, {args.bins} bins, C={args.C:g}, gamma={args.gamma:g}, redrawn split {args.split} "
          f"(load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    reduction = partial(ReductionSVM, C=args.C, gamma=args.gamma)
    learners = {"ordrank-SMO": partial(reduction, solver="smo"), "ordrank-LIBSVM": partial(reduction, solver="libsvm"),
                "skordinal": partial(SkordinalREDSVM, C=args.C, gamma=args.gamma, kernel="rbf", tol=1e-3)}
    print_header(15)
    for name in args.sets:
        data, predictions = split_of(name, args.bins, data_dir, args.split), {}
        X, y, X_test, y_test = data
        for label in args.implementations:
            if label not in learners:
                continue
            gram_gb = 8 * (len(y) * (len(np.unique(y)) - 1)) ** 2 / 1e9
            if label == "ordrank-LIBSVM" and gram_gb > args.max_gram_gb:
                print(f"{name:<11}{len(y):>6}{len(y_test):>7}{label:>15}   skipped: extended Gram {gram_gb:.0f} GB")
                continue
            fit_and_print(name, label, learners[label], data, predictions, width=15)


def print_header(width):
    """The column names of fit_and_print's lines, its learner column ``width`` wide."""
    print(f"{'set':<11}{'train':>6}{'test':>7}{'learner':>{width}}{'wall s':>9}{'CPU s':>8}{'MAE':>8}{'0-1':>8}"
          f"{'equal':>7}")


def fit_and_print(name, label, make, data, predictions, width):
    """Fit ``make()`` on one split and print its times, test MAE and zero-one error and the share of its
    test predictions equal to the first learner's (``predictions`` collects them, in the order the learners ran)."""
    X, y, X_test, y_test = data
    model, wall, cpu = timed(lambda: make().fit(X, y))
    predictions[label] = model.predict(X_test)
    first = next(iter(predictions))
    equal = "" if label == first else f"{np.mean(predictions[first] == predictions[label]):.4f}"
    print(f"{name:<11}{len(y):>6}{len(y_test):>7}{label:>{width}}{wall:>9.1f}{cpu:>8.1f}"
          f"{mean_absolute_error(y_test, predictions[label]):>8.4f}"
          f"{mean_zero_one_error(y_test, predictions[label]):>8.4f}{equal:>7}", flush=True)
