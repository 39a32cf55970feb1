"""SVORIM (or Reduction-SVM) at the papers' training sizes: ordrank's against skordinal's, same fits.

    python benchmarks/bench_svor_papers_sizes.py [--sets bank2 computer2 calhousing census2]
                                                 [--bins 10] [--C 10] [--gamma 0.1] [--split 0]
                                                 [--diagonal-jitter 0 0.001]
    python benchmarks/bench_svor_papers_sizes.py --reduction [--learners ordrank-SMO ordrank-LIBSVM skordinal]

``--reduction`` times Reduction-SVM instead: ordrank's SMO on the base kernel, ordrank's LIBSVM on the
precomputed extended kernel (skipped where that matrix, 8·(n(K−1))² bytes, exceeds ``--max-gram-gb``)
and skordinal's REDSVM (Lin's libsvm-rank, the same reduction in C).

The sizes of Chu & Keerthi (2007, Table 2; Li & Lin 2006 used the same): bank 3,000, computer 4,000,
california 5,000 and census 6,000 training rows, the rest as test, drawn from ORCA's complete data
sets as ``+experiment=svor_benchmark_papers_sizes`` draws them (``dataset.redraw``, seed 0, split
``--split``; not the papers' own splits, which are not public). One fit per set at one (C, γ),
Gaussian kernel, implicit constraints, tolerance 1e-3, ours by default with skordinal's 0.001 on the
Gram diagonal (the same problem; ``--diagonal-jitter 0`` fits the textbook dual, as the experiment's
configs do; several values fit ordrank's learners once per value, the label ending in ``+J<value>``).
Prints each fit's wall and CPU seconds, the test MAE and zero-one error and the share of test
predictions equal to the first learner's. To estimate the experiment's cost from a fit's time: one
job is 3-fold CV over the 3 × 3 grid plus the final fit, about 4 × 9 fits on 2/3 of the rows plus
one (an upper bound: the fits of a C grid share one compiled problem per fold).

Run on demand (not a test). Times depend on the machine's load; CPU seconds depend on it less.
"""
from __future__ import annotations

import argparse
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
CONFIG = OmegaConf.load(Path(__file__).resolve().parents[1] / "conf" / "experiment" / "svor_benchmark"
                        / "papers_sizes.yaml")
SIZES = dict(CONFIG.train_sizes)


def timed(fit):
    wall, cpu = time.perf_counter(), time.process_time()
    model = fit()
    return model, time.perf_counter() - wall, time.process_time() - cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--bins", type=int, default=10, choices=(5, 10))
    parser.add_argument("--C", type=float, default=10.0)
    parser.add_argument("--gamma", type=float, default=0.1)
    parser.add_argument("--constraints", default="implicit", choices=("implicit", "explicit"))
    parser.add_argument("--split", type=int, default=0, help="which redrawn partition (0-19)")
    parser.add_argument("--diagonal-jitter", type=float, nargs="+", default=[0.001],
                        help="ordrank's SVOR diagonal_jitter, one fit per value (skordinal's C code always "
                             "adds 0.001)")
    parser.add_argument("--learners", nargs="+", default=["ordrank-SMO", "skordinal"],
                        choices=["ordrank-SMO", "ordrank-QP", "ordrank-LIBSVM", "skordinal"],
                        help="the first is the one the others' predictions are compared with "
                             "(ordrank-QP: SVOR's default solver='auto', SMO within a budget of pair steps, "
                             "then the interior point; "
                             "ordrank-LIBSVM: Reduction-SVM's precomputed extended kernel)")
    parser.add_argument("--reduction", action="store_true", help="Reduction-SVM instead of SVOR")
    parser.add_argument("--max-gram-gb", type=float, default=6.0,
                        help="skip ordrank-LIBSVM where the extended Gram matrix would exceed this")
    args = parser.parse_args(argv)
    if args.reduction:
        return reduction_main(args)
    data_dir = os.environ.get("ORDRANK_DATA", "data")
    print(f"SVOR {args.constraints}, {args.bins} bins, C={args.C:g}, gamma={args.gamma:g}, redrawn split {args.split}, "
          f"ordrank's diagonal_jitter={', '.join(f'{j:g}' for j in args.diagonal_jitter)} "
          f"(load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    skordinal = partial(SkordinalSVOR, C=args.C, gamma=args.gamma, kernel="rbf", constraints=args.constraints, tol=1e-3)
    runs = []  # (label, learner): skordinal once, ordrank's learners once per jitter value
    for label in args.learners:
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


def reduction_main(args):
    data_dir = os.environ.get("ORDRANK_DATA", "data")
    print(f"Reduction-SVM, {args.bins} bins, C={args.C:g}, gamma={args.gamma:g}, redrawn split {args.split} "
          f"(load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    reduction = partial(ReductionSVM, C=args.C, gamma=args.gamma)
    learners = {"ordrank-SMO": partial(reduction, solver="smo"), "ordrank-LIBSVM": partial(reduction, solver="libsvm"),
                "skordinal": partial(SkordinalREDSVM, C=args.C, gamma=args.gamma, kernel="rbf", tol=1e-3)}
    print_header(15)
    for name in args.sets:
        data, predictions = split_of(name, args.bins, data_dir, args.split), {}
        X, y, X_test, y_test = data
        for label in args.learners:
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


if __name__ == "__main__":
    main()
