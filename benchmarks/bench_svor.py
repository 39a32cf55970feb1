"""How fast is ordrank's SVOR beside skordinal's (Chu & Keerthi's SMO in C): one fit, the SVOR
benchmark's model selection, and fits at the papers' training sizes.

    python benchmarks/bench_svor.py [--part all|fits|selection|papers-sizes ...] [--data-dir DIR]
    python benchmarks/bench_svor.py --part fits [--repeats 3] [--large]
    python benchmarks/bench_svor.py --part selection [--sizes 1000 3000] [--repeats 3]
                                    [--fit-C 1] [--variants implicit [explicit]]
                                    [--dataset abalone --bins 10 --split 0]
                                    [--learners SVORIM SVOREX Reduction-SVM] [--skip-one-fit] [--skip-grid]
                                    [--solvers [CLARABEL SMO] [--solver-splits 0 1 2]] [--skip-huge-pages]
    python benchmarks/bench_svor.py --part papers-sizes [--sets bank2 computer2 calhousing census2]
                                    [--bins 10] [--C 10] [--gamma 0.1] [--split 0]
                                    [--diagonal-jitter 0 0.001] [--implementations ordrank-SMO skordinal]
    python benchmarks/bench_svor.py --part papers-sizes --reduction
                                    [--implementations ordrank-SMO ordrank-LIBSVM skordinal]

The parts that read data (selection, papers-sizes: ORCA's sets) take the data folder from
``--data-dir``, else ``$ORDRANK_DATA``, else ``data/``. Run on demand (not a test); times depend on the
machine's load, CPU seconds less so. With ``selection`` among the parts, every fit runs on one thread
(``OMP_NUM_THREADS`` and the like set to 1 unless the caller set them, before numpy loads).

fits
    ordrank's SVOR with its default solver ("auto": SMO, then the IPM where the SMO stalls) and with
    its cvxpy oracle dual (solver="CLARABEL") against skordinal's SVOR, same run. Synthetic data
    (``ordrank.datasets.quantile_ranks``): 10 ranks (deciles of a latent score s + noise·std(s)·ε, s
    linear plus a sine in 8 Gaussian features), Gaussian kernel, C = 1, γ = 0.1, tolerance 1e-3,
    implicit constraints, at n = 150, 1000, 2000 (and 5000 with ``--large``), with little (0.2) and
    much (1.0) label noise: the SMO's time grows with the overlap of the ranks, the interior-point
    solver's hardly. Prints the best of ``--repeats`` fresh fits of each (the compiled-problem cache
    is cleared before each of ours); the ratio of the default's time to skordinal's (targets: ≤ 3 at
    n = 1000, ≤ 4 at n = 2000) and the oracle's, the stage that finished the default's fit, the
    largest threshold difference to skordinal and the share of equal predictions (default's), the
    form of the oracle's kernel term (the factor's rank r, or "exact") and the smallest rank any
    factor would need (from the spectrum, n ≤ 2000). Then the two forms of the kernel term on data
    where the low-rank factor applies (2 features, same γ): the factored fit (r columns) against the
    exact n × n form (forced), their objectives, thresholds and predictions, and skordinal; and, at
    n = 150, a grid of 5 values of C on one compiled problem against 5 independent fits.

selection
    (a) One SVOR fit (implicit constraints unless ``--variants``; Gaussian kernel, C = 1 unless
    ``--fit-C``, γ = 0.1, tol 1e-3; the data of ``fits``, noise 0.2) at ``--sizes``: ordrank's default
    (``solver="auto"``; the one that ran in brackets), its Clarabel (the whole dual in cvxpy), its
    structured interior point (``solver="IPM"``), its SMO (``solver="SMO"``) and skordinal's SVOR,
    best of ``--repeats`` alternating runs (the compiled-problem cache cleared before each), one
    thread each; wall and CPU seconds, the time ratio ordrank/skordinal and the share of equal
    predictions on the training rows. ``--skip-one-fit``: no (a).
    (b) The model selection of one job of ``+experiment=svor_benchmark`` (``--dataset``, ``--bins``,
    ``--split``; the experiment's grids and 3 folds) for each of ``--learners``, scikit-learn's
    GridSearchCV ("before": candidate-major, each grid point on every fold, so SVOR's compiled
    problems, one per fold and γ, are evicted from the 8-entry cache before their next C, and
    Reduction-SVM builds its extended Gram matrix at every fit) against ``TrainTestPartitions.select``
    ("after": fold by fold, C fastest, inside ``qp.cache.reuse()``), alternating. Wall and CPU seconds,
    whether every grid point's mean CV score, the chosen values and the test MAE of the refit are
    identical (==, not within a tolerance), with the experiment's configured solver. ``--skip-grid``:
    no (b).
    (c) SVORIM's and SVOREX's model selection with the configured solver and with each of
    ``--solvers`` (default: CLARABEL and SMO; a solver change gives other floating-point results, the
    same optimum within ``tol``) on each of ``--solver-splits``: time, choice, the refit's test MAE and
    zero-one error. ``--solvers`` with no name skips it.
    (d) One whole job of the sweep (``run.py``, the same data set, bins and partition; the external learners from
    the committed external cache) in a subprocess with ``NUMPY_MADVISE_HUGEPAGE=1`` (numpy's default:
    large arrays advised to transparent huge pages) and ``=0`` (what run.py, experiments/reproduce.py
    and the Makefile set), best of min(``--repeats``, 2): wall, user and system seconds and whether the
    two results tables are identical. ``--skip-huge-pages``: no (d).

papers-sizes
    SVORIM (``--reduction``: Reduction-SVM) at the sizes of Chu & Keerthi (2007, Table 2; Li & Lin
    2006 used the same): bank 3,000, computer 4,000, california 5,000 and census 6,000 training rows,
    the rest as test, drawn from ORCA's complete data sets as ``+experiment=svor_benchmark_papers_sizes``
    draws them (``dataset.redraw``, seed 0, split ``--split``; not the papers' own splits, which are
    not public). One fit per set at one (``--C``, ``--gamma``), Gaussian kernel, ``--constraints``
    (implicit), tolerance 1e-3, ordrank's by default with skordinal's 0.001 on the Gram diagonal (the
    same problem; ``--diagonal-jitter 0`` fits the textbook dual, as the experiment's configs do;
    several values fit ordrank's learners once per value, the label ending in ``+J<value>``).
    ``--implementations``: the first is the one the others' predictions are compared with
    (ordrank-SMO: ``solver="SMO"``; ordrank-QP: the default ``solver="auto"``; skordinal). With
    ``--reduction``: ordrank's SMO on the base kernel, ordrank's LIBSVM on the precomputed extended
    kernel (ordrank-LIBSVM; skipped where that matrix, 8·(n(K−1))² bytes, exceeds ``--max-gram-gb``)
    and skordinal's REDSVM (Lin's libsvm-rank, the same reduction in C). Prints each fit's wall and
    CPU seconds, the test MAE and zero-one error and the share of test predictions equal to the first
    learner's. To estimate the experiment's cost from a fit's time: one job is 3-fold CV over the
    3 × 3 grid plus the final fit, about 4 × 9 fits on 2/3 of the rows plus one (an upper bound: the
    fits of a C grid share one compiled problem per fold).
"""
from __future__ import annotations

import argparse
import os

PARTS = ["fits", "selection", "papers-sizes"]
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS", "RAYON_NUM_THREADS")


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", nargs="+", choices=["all", *PARTS], default=["all"])
    parser.add_argument("--data-dir", default=None, help="where the data sets are (default: $ORDRANK_DATA, else data/)")
    parser.add_argument("--repeats", type=int, default=3, help="fits, selection: best of this many")
    parser.add_argument("--large", action="store_true", help="fits: also n = 5000 (slow)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 3000], help="selection (a)'s n")
    parser.add_argument("--fit-C", type=float, nargs="+", default=[1.0], help="selection (a)'s C values")
    parser.add_argument("--variants", nargs="+", default=["implicit"], choices=["implicit", "explicit"],
                        help="selection (a)'s constraints")
    parser.add_argument("--dataset", default="abalone", help="selection (b)-(d)'s ORCA data set")
    parser.add_argument("--bins", type=int, default=10, help="selection, papers-sizes (5 or 10)")
    parser.add_argument("--split", type=int, default=0, help="selection: partition; papers-sizes: redrawn one (0-19)")
    parser.add_argument("--learners", nargs="+", default=["SVORIM", "SVOREX", "Reduction-SVM"],
                        help="selection (b), (c)")
    parser.add_argument("--skip-one-fit", action="store_true", help="selection: no (a)")
    parser.add_argument("--skip-grid", action="store_true", help="selection: no (b)")
    parser.add_argument("--solvers", nargs="*", default=["CLARABEL", "SMO"],
                        help="selection (c): SVOR's selection with these solvers beside the configured one")
    parser.add_argument("--solver-splits", type=int, nargs="+", default=[0], help="selection (c)")
    parser.add_argument("--skip-huge-pages", action="store_true", help="selection: no (d)")
    parser.add_argument("--sets", nargs="+", default=None, help="papers-sizes (default: every set of its config)")
    parser.add_argument("--C", type=float, default=10.0, help="papers-sizes")
    parser.add_argument("--gamma", type=float, default=0.1, help="papers-sizes")
    parser.add_argument("--constraints", default="implicit", choices=("implicit", "explicit"), help="papers-sizes")
    parser.add_argument("--diagonal-jitter", type=float, nargs="+", default=[0.001],
                        help="papers-sizes: ordrank's SVOR diagonal_jitter, one fit per value (skordinal's C code "
                             "always adds 0.001)")
    parser.add_argument("--implementations", nargs="+", default=["ordrank-SMO", "skordinal"],
                        choices=["ordrank-SMO", "ordrank-QP", "ordrank-LIBSVM", "skordinal"],
                        help="papers-sizes: the first is the one the others' predictions are compared with")
    parser.add_argument("--reduction", action="store_true", help="papers-sizes: Reduction-SVM instead of SVOR")
    parser.add_argument("--max-gram-gb", type=float, default=6.0,
                        help="papers-sizes --reduction: skip ordrank-LIBSVM where the extended Gram matrix would "
                             "exceed this")
    return parser


def main(argv=None):
    args = parser().parse_args(argv)
    chosen = set(PARTS) if "all" in args.part else set(args.part)
    if "selection" in chosen:  # one thread each (unless the caller set a count), before numpy loads
        os.environ.update({var: os.environ.get(var, "1") for var in THREADS})
        os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")  # as run.py sets it for every job (d)
    from parts import svor_fits, svor_papers_sizes, svor_selection

    from ordrank.datasets.data_dir import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    if "fits" in chosen:
        svor_fits.run(args.repeats, args.large)
    if "selection" in chosen:
        if not args.skip_one_fit:
            svor_selection.one_fit(args.sizes, args.repeats, args.fit_C, args.variants)
        if not args.skip_grid:
            svor_selection.grid_search(args.dataset, args.bins, args.split, args.learners, args.repeats, data_dir)
        if args.solvers:
            svor_selection.solver_selection(args.dataset, args.bins, args.solver_splits, args.learners,
                                            args.solvers, data_dir)
        if not args.skip_huge_pages:
            svor_selection.huge_pages(args.dataset, args.bins, args.split, min(args.repeats, 2), data_dir)
    if "papers-sizes" in chosen:
        unknown = sorted(set(args.sets or []) - set(svor_papers_sizes.SIZES))
        if unknown or args.bins not in (5, 10):
            raise SystemExit(f"bench_svor.py papers-sizes: --sets {unknown} not among "
                             f"{list(svor_papers_sizes.SIZES)}" if unknown else
                             f"bench_svor.py papers-sizes: --bins {args.bins}, not 5 or 10")
        args.sets = args.sets or list(svor_papers_sizes.SIZES)
        (svor_papers_sizes.reduction_fits if args.reduction else svor_papers_sizes.svor_fits)(args, data_dir)


if __name__ == "__main__":
    main()
