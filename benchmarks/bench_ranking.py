"""Speed of the pairwise rankers (RankSVM, RankNet) against their explicit-pairs oracles, same run.

    python benchmarks/bench_ranking.py [--quick] [--part ohsumed|synthetic|all] [--C 0.01 0.1]

(a) LETOR 3.0 OHSUMED, Fold1's training part (S1+S2+S3 of <data dir>/letor3-ohsumed/
QueryLevelNorm, read by scikit-learn's load_svmlight_file): the document and pair counts (9,219 and
367,663 expected), then per C: linear RankSVM (hinge and squared hinge; best of ``--repeats`` fits)
against LinearSVC(fit_intercept=False, C/2) on the mirrored explicit pair differences (one fit), with
both objectives computed on the explicit pairs; RankNet-linear (σ = 1, α = 1e-4). Targets: RankSVM
≤ 1 s and ≥ 10× faster than LinearSVC; RankNet-linear ≤ 5 s.

(b) synthetic LETOR-like data: 2,000 queries × 100 documents × 136 features (Gaussian), relevance 0..4
from a noisy linear score cut at per-query quintiles; 8 million preference pairs, never built. Each
learner is fitted in its own subprocess (data generated there too), which reports its fit time and
peak resident memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) at the end of the fit ("peak
GB", data included) and before it ("data GB": the data's generation). Targets: RankSVM and
RankNet-linear ≤ 30 s and ≤ 2 GB each; LightGBM's LGBMRanker (lambdarank, 100 trees) beside them.
``--quick``: 200 queries × 50 documents, no LinearSVC at C ≥ 0.1.

Run on demand (not a test). Times depend on the machine's load.
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

from ordrank.algorithms.ranking import RankNet, RankSVM
from ordrank.datasets.ratings import resolve_data_dir
from ordrank.queries import count_pairs, preference_pairs

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=None, help="where the data sets are (default: $ORDRANK_DATA, else data/)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", choices=["ohsumed", "synthetic", "all"], default="all")
    parser.add_argument("--C", type=float, nargs="+", default=[0.01, 0.1])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300, help="per synthetic fit, seconds")
    parser.add_argument("--fit-one", nargs=3, metavar=("NAME", "QUERIES", "DOCS"))
    args = parser.parse_args()
    if args.fit_one:
        name, n_queries, n_docs = args.fit_one
        return fit_one(name, int(n_queries), int(n_docs))
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.part in ("ohsumed", "all"):
        ohsumed(args.C, 1 if args.quick else args.repeats, args.quick, args.data_dir)
    if args.part in ("synthetic", "all"):
        scale(args.quick, args.timeout)


if __name__ == "__main__":
    main()
