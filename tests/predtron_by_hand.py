"""An independent re-implementation of the Predtron for subset ranking (Jain, Natarajan & Tewari,
NIPS 2015, Algorithm 1 with Section 4's representation), to check the committed Figure 1 tables.

It imports nothing of ordrank's Predtron (no ``ordrank.algorithms``, ``ordrank.protocols`` or
``ordrank.metrics``): only the data generator, ``ordrank.datasets.subset_ranking``, and the
protocol's published seeding (``SeedSequence(seed, spawn_key=(r, m, p))`` spawns the task, test and
training streams; the training set of size n is the first n queries of a pool of max(n_train)).

One round on a query X (m, p) with relevance y:

    t = X w;  σ sorts t decreasingly (ties: document order);  if L(σ, y) = 1 − NDCG(σ, y) > 0:
    σ_y = an ideal ranking (by relevance, then by t, then by document);
    σ̃ = argmax_σ L(σ, y) + ⟨rep(σ), t⟩   (a linear assignment of documents to positions);
    w ← w − η Xᵀ(rep(σ̃) − rep(σ_y)),     rep(σ)_i = f(σ(i)) / ‖(f(1), …, f(m))‖.

Interpretations: ``until_separated`` (passes over the n queries in order until a pass makes no mistake,
at most 50) and ``one`` (a single pass).

    python tests/predtron_by_hand.py               # compares with results/predtron_subset_n, prints
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from ordrank.datasets.subset_ranking import GaussianSubsetRanking

F = {"inverse": lambda i: 1.0 / i, "power_1.1": lambda i: -i ** 1.1, "power_2": lambda i: -i ** 2.0}
N_TRAIN = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]  # the pool is max(n_train) queries (Figure 1 (a))


def rep_table(f: str, m: int) -> np.ndarray:
    values = F[f](np.arange(1.0, m + 1))
    return values / np.linalg.norm(values)


def discounts(m: int) -> np.ndarray:
    return 1.0 / np.log2(1.0 + np.arange(1, m + 1))


def ndcg(order: np.ndarray, y: np.ndarray) -> float:
    """NDCG of the ranking that puts document order[j] at position j + 1 (all-zero y: 1)."""
    gains = 2.0 ** y - 1.0
    ideal = np.sort(gains)[::-1] @ discounts(len(y))
    return 1.0 if ideal == 0 else float(gains[order] @ discounts(len(y)) / ideal)


def predtron(X, y, f="inverse", eta=1.0, passes="until_separated", cap=50):
    """Weights w (p,) and passes made, on dense queries X (n, m, p), y (n, m), in order, from w = 0."""
    n, m, p = X.shape
    rep, disc = rep_table(f, m), discounts(m)
    w = np.zeros(p)
    for made in range(1, (1 if passes == "one" else cap) + 1):
        mistakes = 0
        for Xq, yq in zip(X, y):
            t = Xq @ w
            order = np.argsort(-t, kind="stable")
            if np.all(np.diff(yq[order]) <= 0):  # the prediction is an ideal ranking: no loss
                continue
            mistakes += 1
            gains = 2.0 ** yq - 1.0
            ideal = np.sum(np.sort(gains)[::-1] * disc)
            ideal_order = np.lexsort((-t, -yq))  # by relevance, then score, then document
            rep_y = np.empty(m)
            rep_y[ideal_order] = rep
            # L(σ, y) + <rep(σ), t> = 1 − Σ_i g_i D(σ(i))/ideal + Σ_i t_i rep(σ(i)): document i → position j.
            # σ̃ is not unique when scores tie (at w = 0 all do): the matrix is written as ordrank's
            # (g_i · (1/ideal)) · D_j, so that scipy breaks such ties the same way, bit for bit.
            cost = t[:, None] * rep[None, :] - (gains * (1.0 / ideal))[:, None] * disc[None, :]
            docs, positions = linear_sum_assignment(cost, maximize=True)
            rep_tilde = np.empty(m)
            rep_tilde[docs] = rep[positions]
            w = w - eta * Xq.T @ (rep_tilde - rep_y)
        if passes != "one" and mistakes == 0:
            break
    return w, made


def test_loss(w, X, y) -> float:
    return float(np.mean([1.0 - ndcg(np.argsort(-(Xq @ w), kind="stable"), yq) for Xq, yq in zip(X, y)]))


def grid_point(r, n, f, passes, m=20, p=30, seed=0, n_test=200, pool=max(N_TRAIN)):
    """(test NDCG loss, passes) of repetition r, n training queries, as the protocol draws them."""
    task_rng, test_rng, train_rng = [np.random.default_rng(s) for s in
                                     np.random.SeedSequence(seed, spawn_key=(r, m, p)).spawn(3)]
    task = GaussianSubsetRanking().task(task_rng, m, p)
    X_test, y_test = task.sample(test_rng, n_test)
    X, y = task.sample(train_rng, pool)
    w, made = predtron(X[:n], y[:n], f, passes=passes)
    return test_loss(w, X_test, y_test), made


def main(argv=None):
    path = Path(argv[0] if argv else "results/predtron_subset_n/subset_ranking.parquet")
    table = pd.read_parquet(path)
    table = table[table.algorithm.str.startswith("Predtron")]
    f_of = {a: table[f"config.algorithms.{a}.f"].dropna().iloc[0] for a in table.algorithm.unique()}
    value = table.set_index(["algorithm", "passes_mode", "seed", "n_train", "metric"])["value"]
    worst = 0.0
    for algorithm, f in f_of.items():
        for passes in ("until_separated", "one"):
            for r, n in ((0, 10), (3, 50), (7, 100)):
                loss, made = grid_point(r, n, f, passes)
                committed = value[algorithm, passes, r, n, "test_ndcg_loss"]
                assert made == value[algorithm, passes, r, n, "passes"], (algorithm, passes, r, n)
                worst = max(worst, abs(loss - committed))
                print(f"{algorithm:20s} {passes:16s} r={r} n={n:3d}  by hand {loss:.12f}  committed "
                      f"{committed:.12f}  passes {made}")
    print(f"largest difference {worst:.2e}")
    # the one-pass interpretation at n = 100 over the 20 repetitions: 1/i about twice the other two
    means = {f: np.mean([grid_point(r, 100, f, "one")[0] for r in range(20)]) for f in F}
    print("one pass, n = 100, mean test loss over 20 repetitions:",
          {f: round(v, 5) for f, v in means.items()})
    return worst, means


if __name__ == "__main__":
    main(sys.argv[1:])
