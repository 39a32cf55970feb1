"""How fast are the pairwise and boosted rankers beside their oracles and external: RankSVM and RankNet
against the explicit pairs and LightGBM, RankBoost's rounds, and RankSVM's two hinge solvers.

    python benchmarks/bench_ranking.py [--part all|ohsumed|synthetic|rankboost|solvers|raw-features ...]
                                       [--data-dir DIR] [--quick]
    python benchmarks/bench_ranking.py --part ohsumed synthetic [--C 0.01 0.1] [--repeats 3] [--timeout 300]
    python benchmarks/bench_ranking.py --part rankboost [--rounds 300] [--skip-ohsumed]
    python benchmarks/bench_ranking.py --part solvers [--quick | --large] [--tol 1e-5] [--limit 120]
                                       [--solver-data mslr subset ohsumed]
    python benchmarks/bench_ranking.py --part raw-features [--limit 120]

LETOR 3.0 OHSUMED is read from the data folder: ``--data-dir``, else ``$ORDRANK_DATA``, else ``data/``
(``<data dir>/letor3-ohsumed``). Run on demand (not a test); times depend on the machine's load.

ohsumed
    OHSUMED Fold1's training part (S1+S2+S3 of ``letor3-ohsumed/QueryLevelNorm``, read by scikit-learn's
    load_svmlight_file): the document and pair counts (9,219 and 367,663 expected), then per ``--C``:
    linear RankSVM (hinge and squared hinge; best of ``--repeats`` fits) against
    LinearSVC(fit_intercept=False, C/2) on the mirrored explicit pair differences (one fit), with both
    objectives computed on the explicit pairs; RankNet-linear (σ = 1, α = 1e-4). Targets: RankSVM ≤ 1 s
    and ≥ 10× faster than LinearSVC; RankNet-linear ≤ 5 s. ``--quick``: one fit each, no LinearSVC at
    C ≥ 0.1.
synthetic
    LETOR-like data: 2,000 queries × 100 documents × 136 features (Gaussian), relevance 0..4 from a noisy
    linear score cut at per-query quintiles; 8 million preference pairs, never built. Each learner is
    fitted in its own subprocess (data generated there too), which reports its fit time and peak
    resident memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) at the end of the fit ("peak GB",
    data included) and before it ("data GB": the data's generation); a fit over ``--timeout`` seconds is
    stopped. Targets: RankSVM and RankNet-linear ≤ 30 s and ≤ 2 GB each; LightGBM's LGBMRanker
    (lambdarank, 100 trees) beside them. ``--quick``: 200 queries × 50 documents.
rankboost
    ``--rounds`` rounds of RankBoost on OHSUMED Fold1's training part (≤ 10 s asked; its test NDCG@10 on
    Fold1's test part) and of RankBoostOrdinal on 100,000 synthetic ordinal rows without queries (10
    features, 5 ranks; ≤ 60 s asked), every distinct value a candidate threshold (the default) and 64
    quantiles. The factored pair weights make a round O(n·d), so the pair counts printed are never
    built. ``--skip-ohsumed``: the synthetic rows only.
solvers
    ``RankSVM(solver="cutting_plane")`` and ``RankSVM(solver="smoothed_newton")`` (same C, tol and
    max_iter; both stop on the same certified relative duality gap ``--tol``) at a range of
    preference-pair counts straddling ``AUTO_NEWTON_PAIRS`` (from which ``"auto"`` takes the smoothed
    Newton where the pairs are counted by sweeps, not from the explicit pairs: more than ``n_levels``
    pairs per document), on each of ``--solver-data``:
    ``mslr``, the first queries of the training part of :func:`ordrank.datasets.mslr_shaped.mslr_shaped`
    (MSLR-WEB10K's shape: long-tailed queries of ~120 documents, ~5,000 pairs each, 136 features,
    float32), query-level normalized as ``+experiment=letor_web`` does; 1e4 .. 1e7 pairs (``--quick``:
    up to 3e5); C from that experiment's grid (1e-4, 1e-2) and 1;
    ``subset``, Predtron's Figure 1 data (:class:`ordrank.datasets.subset_ranking.GaussianSubsetRanking`,
    m = 20 documents per query, p = 30 features): small queries, few pairs per document (the cutting
    plane counts them from the explicit pairs); C from that experiment's grid (0.01, 1, 10); 1.5e4 ..
    1.2e6 pairs, ``--large`` adds 1e7 (68,000 queries);
    ``ohsumed``, OHSUMED Fold1's training part (367,663 pairs; the five folds have 283,484 .. 422,716),
    if the data folder holds it (else a note on stderr); C from the upper part of its grid.
    Each fit is timed by wall clock and by this process's CPU time (the machine's load shows in the
    first, not the second; the 1-minute load average is printed on each row); fits under one CPU
    second are repeated (best of 3). A fit over ``--limit`` CPU seconds is stopped (a SIGPROF timer)
    and shown as ``> limit``; a fit stopped by max_iter shows its certified gap above tol. The faster
    solver is the one of less CPU time among those that reached tol. Prints a markdown table.
raw-features
    RankSVM as ``+experiment=letor_web`` fits it (``solver="auto"``, tol = 1e-3, its C grid 1e-4 ..
    1e-2) on an MSLR-shaped sample (``mslr_shaped(scale=0.07)``: 48,679 training documents, 3.8M
    pairs) with raw features (``features=none``: columns on scales from 1e-3 to 1e6) and query-level
    normalized: time, iterations, certified gap, objective (of each problem: not comparable across the
    two) and test NDCG@10, each fit the best of 3 by CPU time (stopped over ``--limit`` CPU seconds),
    and raw ÷ normalized CPU time per C.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

from ordrank.algorithms.ranking import RankBoost, RankBoostOrdinal, RankNet, RankSVM
from ordrank.datasets.data_dir import resolve_data_dir
from ordrank.queries import count_pairs, preference_pairs

PARTS = ["ohsumed", "synthetic", "rankboost", "solvers", "raw-features"]


def load_ohsumed_fold1_train(data_dir):
    from sklearn.datasets import load_svmlight_files

    folder = resolve_data_dir(data_dir) / "letor3-ohsumed" / "QueryLevelNorm"
    parts = load_svmlight_files([str(folder / f"S{k}.txt") for k in (1, 2, 3)], query_id=True,
                                n_features=45)
    X = np.vstack([parts[3 * k].toarray() for k in range(3)])
    y = np.concatenate([parts[3 * k + 1] for k in range(3)])
    # the subsets reuse no query id (checked by check_qid's contiguity test inside fit)
    qid = np.concatenate([parts[3 * k + 2] for k in range(3)])
    return X, y, qid


def explicit_objective(w, D, C, loss):
    slack = np.maximum(1.0 - D @ w, 0.0)
    return 0.5 * float(w @ w) + C * float(np.sum(slack if loss == "hinge" else slack ** 2))


def best_time(fit, repeats):
    times, model = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        model = fit()
        times.append(time.perf_counter() - start)
    return min(times), model


def ohsumed(Cs, repeats, quick, data_dir):
    from sklearn.svm import LinearSVC

    X, y, qid = load_ohsumed_fold1_train(data_dir)
    n_pairs = count_pairs(y, qid)
    print(f"OHSUMED Fold1 train (S1+S2+S3): {X.shape[0]} documents, {X.shape[1]} features, "
          f"{len(np.unique(qid))} queries, {n_pairs} preference pairs")
    i, j = preference_pairs(y, qid)
    D = X[i] - X[j]
    rows, signs = np.vstack([D, -D]), np.r_[np.ones(len(D)), -np.ones(len(D))]
    print(f"{'learner':<28}{'C':>7}{'fit s':>9}{'iters':>7}{'objective':>18}{'rel. diff':>11}"
          f"{'ratio':>8}")
    for loss in ("hinge", "squared_hinge"):
        for C in Cs:
            t_ours, ours = best_time(lambda: RankSVM(C=C, loss=loss).fit(X, y, qid), repeats)
            f_ours = explicit_objective(ours.coef_, D, C, loss)
            print(f"{'RankSVM ' + loss:<28}{C:>7g}{t_ours:>9.3f}{ours.n_iter_:>7}{f_ours:>18.6f}")
            if quick and C >= 0.1:
                continue
            start = time.perf_counter()
            oracle = LinearSVC(C=C / 2, loss=loss, fit_intercept=False, tol=1e-6, max_iter=100_000)
            oracle.fit(rows, signs)
            t_oracle = time.perf_counter() - start
            f_oracle = explicit_objective(oracle.coef_.ravel(), D, C, loss)
            print(f"{'LinearSVC pairs ' + loss:<28}{C:>7g}{t_oracle:>9.3f}"
                  f"{int(np.max(oracle.n_iter_)):>7}{f_oracle:>18.6f}"
                  f"{(f_ours - f_oracle) / f_oracle:>11.1e}{t_oracle / t_ours:>8.1f}")
    t_net, net = best_time(lambda: RankNet().fit(X, y, qid), repeats)
    print(f"{'RankNet linear':<28}{'':>7}{t_net:>9.3f}{net.n_iter_:>7}{net.objective_:>18.6f}")
    print(f"  (NDCG@10 on the training part: RankSVM C={Cs[0]:g} "
          f"{RankSVM(C=Cs[0]).fit(X, y, qid).score(X, y, qid):.4f}, RankNet {net.score(X, y, qid):.4f})")


def synthetic(n_queries, n_docs, n_features=136, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_queries * n_docs, n_features))
    w = rng.normal(size=n_features) / np.sqrt(n_features)
    latent = (X @ w + 0.5 * rng.normal(size=len(X))).reshape(n_queries, n_docs)
    cuts = np.quantile(latent, [0.2, 0.4, 0.6, 0.8], axis=1).T  # per query: 5 equal levels
    y = np.sum(latent[:, :, None] > cuts[:, None, :], axis=2).ravel().astype(np.float64)
    qid = np.repeat(np.arange(n_queries), n_docs)
    return X, y, qid


def fit_one(name, n_queries, n_docs):
    """In a subprocess: generate the data, fit one learner, print JSON (time, memory, pairs)."""
    X, y, qid = synthetic(n_queries, n_docs)
    data_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20  # KiB on Linux -> GiB
    start = time.perf_counter()
    if name == "LGBMRanker":
        from lightgbm import LGBMRanker

        model = LGBMRanker(objective="lambdarank", n_estimators=100, verbose=-1)
        model.fit(X, y, group=np.full(n_queries, n_docs))
        iters = model.n_estimators
    else:
        model = {"RankSVM hinge": RankSVM(C=0.01), "RankSVM squared_hinge":
                 RankSVM(C=0.01, loss="squared_hinge"), "RankNet linear": RankNet()}[name]
        model.fit(X, y, qid)
        iters = model.n_iter_
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20  # the process so far
    from ordrank.metrics.ranking import ndcg_at_k

    ndcg = float(np.nanmean(ndcg_at_k(y, model.predict(X), qid, k=10)))
    print(json.dumps({"seconds": seconds, "peak_gb": peak, "data_gb": data_gb, "iters": int(iters), "ndcg10": ndcg,
                      "pairs": count_pairs(y, qid)}))


def scale(quick, timeout):
    n_queries, n_docs = (200, 50) if quick else (2000, 100)
    print(f"\nsynthetic: {n_queries} queries x {n_docs} documents x 136 features, 5 levels "
          f"(each fit in its own process; peak memory includes the data)")
    print(f"{'learner':<24}{'fit s':>9}{'peak GB':>9}{'data GB':>9}{'iters':>7}{'NDCG@10':>9}"
          f"{'pairs':>11}")
    for name in ("RankSVM hinge", "RankSVM squared_hinge", "RankNet linear", "LGBMRanker"):
        try:
            done = subprocess.run([sys.executable, __file__, "--fit-one", name, str(n_queries),
                                   str(n_docs)], capture_output=True, text=True, check=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"{name:<24}{'> ' + str(timeout):>9}  (stopped: over the time limit)")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{name:<24}{r['seconds']:>9.2f}{r['peak_gb']:>9.2f}{r['data_gb']:>9.2f}{r['iters']:>7}{r['ndcg10']:>9.4f}"
              f"{r['pairs']:>11}")


def rankboost_ohsumed(rounds: int, data_dir):
    from ordrank.datasets.letor import LetorData

    fold = LetorData(path=str(resolve_data_dir(data_dir) / "letor3-ohsumed"), n_features=45).fold(1)
    train, test = fold.train, fold.test
    print(f"OHSUMED Fold1 train: {len(train.y)} documents, {train.n_queries} queries, "
          f"{train.X.shape[1]} features, {count_pairs(train.y, train.qid):,} preference pairs")
    for n_thresholds in (None, 64):
        seconds, model = best_time(lambda: RankBoost(rounds, n_thresholds).fit(train.X, train.y, qid=train.qid), 1)
        print(f"  n_thresholds={n_thresholds}: {model.n_iter_} rounds in {seconds:.2f} s (ask: <= 10 s); "
              f"train rloss {model.train_loss_[0]:.4f} -> {model.train_loss_[-1]:.4f}, "
              f"bound {model.loss_bound_[-1]:.4f}; test NDCG@10 {model.score(test.X, test.y, test.qid):.4f}")


def rankboost_ordinal(rounds: int, n: int = 100_000, d: int = 10, k: int = 5):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    latent = X @ rng.normal(size=d) + rng.normal(0, 1.0, n)
    y = np.digitize(latent, np.quantile(latent, np.arange(1, k) / k)) + 1
    print(f"synthetic ordinal: {n} rows, {d} features, {k} ranks, one query, {count_pairs(y):,} pairs")
    for n_thresholds in (None, 64):
        seconds, model = best_time(lambda: RankBoostOrdinal(rounds, n_thresholds).fit(X, y), 1)
        print(f"  RankBoostOrdinal n_thresholds={n_thresholds}: {model.n_iter_} rounds + cut points in "
              f"{seconds:.2f} s (ask: <= 60 s); train MAE {model.train_cost_ / n:.4f}, "
              f"rloss {model.ranker_.train_loss_[-1]:.4f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", nargs="+", choices=["all", *PARTS], default=["all"])
    parser.add_argument("--data-dir", default=None, help="where the data sets are (default: $ORDRANK_DATA, else data/)")
    parser.add_argument("--quick", action="store_true", help="ohsumed, synthetic, solvers: smaller")
    parser.add_argument("--C", type=float, nargs="+", default=[0.01, 0.1], help="ohsumed")
    parser.add_argument("--repeats", type=int, default=3, help="ohsumed: best of this many fits")
    parser.add_argument("--timeout", type=float, default=300, help="synthetic: seconds per fit")
    parser.add_argument("--fit-one", nargs=3, metavar=("NAME", "QUERIES", "DOCS"), help="synthetic's child process")
    parser.add_argument("--rounds", type=int, default=300, help="rankboost")
    parser.add_argument("--skip-ohsumed", action="store_true", help="rankboost: the synthetic rows only")
    parser.add_argument("--large", action="store_true", help="solvers: small queries up to 1e7 pairs too")
    parser.add_argument("--tol", type=float, default=1e-5, help="solvers: both solvers' certified relative gap")
    parser.add_argument("--limit", type=float, default=120.0,
                        help="solvers, raw-features: CPU seconds per fit before it is stopped")
    parser.add_argument("--solver-data", nargs="+", choices=["mslr", "subset", "ohsumed"],
                        default=["mslr", "subset", "ohsumed"], help="solvers")
    args = parser.parse_args()
    if args.fit_one:
        name, n_queries, n_docs = args.fit_one
        return fit_one(name, int(n_queries), int(n_docs))
    chosen = set(PARTS) if "all" in args.part else set(args.part)
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if "ohsumed" in chosen:
        ohsumed(args.C, 1 if args.quick else args.repeats, args.quick, args.data_dir)
    if "synthetic" in chosen:
        scale(args.quick, args.timeout)
    if "rankboost" in chosen:
        if not args.skip_ohsumed:
            rankboost_ohsumed(args.rounds, args.data_dir)
        rankboost_ordinal(args.rounds)
    if "solvers" in chosen or "raw-features" in chosen:
        from parts import ranksvm_solvers

        if "solvers" in chosen:
            ranksvm_solvers.solvers(args.quick, args.large, args.tol, args.limit, args.solver_data,
                                    lambda: ohsumed_if_there(args.data_dir))
        if "raw-features" in chosen:
            ranksvm_solvers.raw_vs_normalized(args.limit)


def ohsumed_if_there(data_dir):
    """OHSUMED Fold1's training part, or None (with a note on stderr) where the data folder lacks it."""
    folder = resolve_data_dir(data_dir) / "letor3-ohsumed"
    if not (folder / "QueryLevelNorm" / "S1.txt").exists():
        print(f"(OHSUMED skipped: no {folder})", file=sys.stderr)
        return None
    return load_ohsumed_fold1_train(data_dir)


if __name__ == "__main__":
    main()
