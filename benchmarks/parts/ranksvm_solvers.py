"""bench_ranking.py's parts ``solvers`` and ``raw-features``: the linear RankSVM's two hinge solvers on
the same data (the basis of ``solver="auto"``'s rule), and RankSVM on raw against query-level
normalized features. What each table shows: the script's docstring."""
from __future__ import annotations

import os
import signal
import time
import warnings

import numpy as np

from ordrank.algorithms.ranking import RankSVM
from ordrank.algorithms.ranking.ranksvm import AUTO_NEWTON_PAIRS
from ordrank.queries import count_pairs, query_offsets

SOLVERS = {"cutting_plane": "cutting plane", "smoothed_newton": "smoothed Newton"}


class OverLimit(Exception):
    pass


def over_limit(signum, frame):
    raise OverLimit


def first_queries(X, y, qid, targets):
    """For each target pair count, the first queries holding at least that many pairs."""
    offsets = query_offsets(qid)
    per_query = np.array([count_pairs(y[a:b]) for a, b in zip(offsets[:-1], offsets[1:])])
    total = np.cumsum(per_query)
    for target in targets:
        if target > total[-1]:
            raise ValueError(f"{target:g} pairs wanted, the data has {total[-1]}")
        rows = offsets[int(np.searchsorted(total, target)) + 1]
        yield X[:rows], y[:rows], qid[:rows]


def mslr(quick, large):
    from ordrank.datasets.mslr_shaped import mslr_shaped
    from ordrank.features.query_norm import query_level_norm

    targets = [1e4, 1e5, 3e5] if quick else [1e4, 1e5, 3e5, 1e6, 3e6, 1e7]
    train = mslr_shaped(scale=0.02 if quick else 0.25, seed=0)["train"]
    X = query_level_norm(train.X, train.qid)
    for part in first_queries(X, train.y, train.qid, targets):
        yield "MSLR-shaped", part, [1e-4, 1e-2, 1.0]


def subset(quick, large):
    from ordrank.datasets.subset_ranking import GaussianSubsetRanking
    from ordrank.protocols.subset_ranking import SubsetRankingProtocol, flat

    sizes = [100, 1000] if quick else [100, 1000, 8000] + ([68_000] if large else [])
    task_rng, _, train_rng = SubsetRankingProtocol().streams(0, 0, 20, 30)
    X, y = GaussianSubsetRanking().task(task_rng, 20, 30).sample(train_rng, sizes[-1])
    for n in sizes:
        yield "subset m=20 p=30", flat(X[:n], y[:n]), [0.01, 1.0] if n > 10_000 else [0.01, 1.0, 10.0]


def raw_vs_normalized(limit):
    """The ``--raw`` table: one fit per (features, C), ``limit`` CPU seconds each."""
    from ordrank.datasets.mslr_shaped import mslr_shaped
    from ordrank.features.query_norm import query_level_norm
    from ordrank.metrics.ranking import ndcg_at_k

    signal.signal(signal.SIGPROF, over_limit)
    parts = mslr_shaped(scale=0.07, seed=0)
    train, test = parts["train"], parts["test"]
    print(f"RankSVM hinge, solver auto, tol=1e-3, max_iter=1000, MSLR-shaped scale 0.07: "
          f"{len(train.y):,} training documents, {count_pairs(train.y, train.qid):,} pairs, "
          f"{len(test.y):,} test; load {os.getloadavg()[0]:.1f}\n")
    print("| features | C | wall / CPU s | iterations | gap | objective | test NDCG@10 | warning |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for C in [1e-4, 1e-3, 1e-2]:
        seconds = {}
        for label in ["query-level norm", "raw"]:
            normed = label != "raw"
            X = query_level_norm(train.X, train.qid) if normed else train.X
            X_test = query_level_norm(test.X, test.qid) if normed else test.X
            best = None
            for _ in range(3):  # best of 3 by CPU time
                signal.setitimer(signal.ITIMER_PROF, limit)
                wall, cpu = time.perf_counter(), time.process_time()
                try:
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        model = RankSVM(C=C, tol=1e-3).fit(X, train.y, train.qid)
                except OverLimit:
                    break
                finally:
                    signal.setitimer(signal.ITIMER_PROF, 0)
                run = (time.perf_counter() - wall, time.process_time() - cpu, model, caught)
                best = run if best is None or run[1] < best[1] else best
            if best is None:
                print(f"| {label} | {C:g} | > {limit:g} CPU | | | | | |", flush=True)
                continue
            wall, cpu, model, caught = best
            seconds[label] = cpu
            ndcg = float(np.nanmean(ndcg_at_k(test.y, model.decision_function(X_test), test.qid, k=10)))
            print(f"| {label} | {C:g} | {wall:.1f} / {cpu:.1f} | {model.n_iter_} | {model.gap_:.1e} | "
                  f"{model.objective_:.7g} | {ndcg:.4f} | {'yes' if caught else ''} |", flush=True)
        if len(seconds) == 2:
            print(f"| raw ÷ normalized CPU | {C:g} | {seconds['raw'] / seconds['query-level norm']:.2f}× | | | | | |",
                  flush=True)


def fit(solver, C, tol, limit, X, y, qid):
    """(wall s, CPU s, model) of the best of up to 3 fits, or None over ``limit`` CPU seconds."""
    best = None
    for _ in range(3):
        signal.setitimer(signal.ITIMER_PROF, limit)
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # stopped at max_iter: its gap says so
                model = RankSVM(C=C, tol=tol, solver=solver).fit(X, y, qid)
        except OverLimit:
            return None
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        run = (time.perf_counter() - wall, time.process_time() - cpu, model)
        best = run if best is None or run[1] < best[1] else best
        if run[1] >= 1.0:
            break
    return best


def solvers(quick, large, tol, limit, data, ohsumed):
    """The solvers' table on each of ``data`` (mslr, subset, ohsumed); ``ohsumed()``: OHSUMED Fold1's
    training part (X, y, qid), or None where the data folder lacks it."""
    signal.signal(signal.SIGPROF, over_limit)
    start, load = time.perf_counter(), os.getloadavg()[0]
    tiny = np.random.default_rng(0).normal(size=(40, 3))
    for solver in SOLVERS:  # compile the numba kernels before any timing
        RankSVM(solver=solver).fit(tiny, np.arange(40) % 3, np.repeat(np.arange(4), 10))
    print(f"RankSVM hinge, tol={tol:g}, max_iter=1000; load {load:.1f} on {os.cpu_count()} cores; "
          f"time = wall / CPU s; auto: smoothed Newton from {AUTO_NEWTON_PAIRS:,} pairs counted by sweeps\n")
    head = ["data", "queries", "pairs", "C"]
    for name in SOLVERS.values():
        head += [f"{name} s", "iters", "gap", "objective"]
    print("| " + " | ".join(head + ["faster", "auto", "load"]) + " |")
    print("|" + "---|" * 4 + "---:|" * 8 + "---|---|---:|")

    def letor():
        found = ohsumed()
        if found is not None:
            yield "OHSUMED Fold1 train", found, [1e-4, 1e-2, 1e-1]

    sources = {"mslr": lambda: mslr(quick, large), "subset": lambda: subset(quick, large), "ohsumed": letor}
    for key in data:
        for label, (X, y, qid), Cs in sources[key]():
            pairs, queries = count_pairs(y, qid), len(query_offsets(qid)) - 1
            # as ranksvm_primal._Problem: at most n_levels pairs per document, the explicit pairs
            sweeps = pairs > len(y) * len(np.unique(y))
            for C in Cs:
                cells, cpu = [label, f"{queries:,}", f"{pairs:,}", f"{C:g}"], {}
                for solver in SOLVERS:
                    run = fit(solver, C, tol, limit, X, y, qid)
                    if run is None:
                        cells += [f"> {limit:g} CPU", "", "", ""]
                        continue
                    wall, seconds, model = run
                    if model.gap_ <= tol:
                        cpu[solver] = seconds
                    cells += [f"{wall:.2f} / {seconds:.2f}", str(model.n_iter_), f"{model.gap_:.1e}",
                              f"{model.objective_:.7g}"]
                if cpu:
                    best = min(cpu, key=cpu.get)
                    other = [v for k, v in cpu.items() if k != best]
                    cells.append(SOLVERS[best] + (f" ×{other[0] / cpu[best]:.1f}" if other else " (only one)"))
                else:
                    best = None
                    cells.append("neither")
                auto = "smoothed_newton" if sweeps and pairs >= AUTO_NEWTON_PAIRS else "cutting_plane"
                cells.append(SOLVERS[auto] + (" ✓" if auto == best else ""))
                cells.append(f"{os.getloadavg()[0]:.1f}")
                print("| " + " | ".join(cells) + " |", flush=True)
    print(f"\n{(time.perf_counter() - start) / 60:.1f} min; load {load:.1f} → {os.getloadavg()[0]:.1f}")
