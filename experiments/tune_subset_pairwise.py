"""Hyper-parameters of the batch rankers beside the Predtron (Figure 1 (a), experiment predtron_subset_n),
chosen once on held-out data: the protocol with master seed 1 (tasks, test sets and training queries
that the published run, seed 0, never draws), 3 repetitions, n = 10 and 50, m = 20, p = 30, 200 test
queries. The value with the lowest mean test NDCG loss over the 6 (repetition, n) fits is kept in
conf/experiment/predtron_subset_n.yaml (RankSVM: C = 10 is the grid's largest; larger C would
cost more time, the solver's iterations growing with C).

    python experiments/tune_subset_pairwise.py
"""
from __future__ import annotations

import itertools
import time

import pandas as pd

from ordrank.algorithms.ranking import LeastSquaresRanker, LightGBMRanker, RankNet, RankSVM
from ordrank.datasets.subset_ranking import GaussianSubsetRanking
from ordrank.protocols.subset_ranking import SubsetRankingProtocol

GRID = {
    "RankSVM": [RankSVM(C=C) for C in (0.01, 0.1, 1.0, 10.0)],
    "RankNet": [RankNet(alpha=a, random_state=0) for a in (1e-8, 1e-6, 1e-4, 1e-2, 1.0)],
    "LambdaMART": [LightGBMRanker(n_estimators=t, num_leaves=k, min_child_samples=c, learning_rate=r,
                                  random_state=0)
                   for t, k, c, r in itertools.product((100, 300), (7, 31), (5, 20), (0.1, 0.3))],
    "LeastSquares": [LeastSquaresRanker(alpha=a) for a in (1e-8, 1.0)],
}
CHANGED = {"RankSVM": ["C"], "RankNet": ["alpha"], "LambdaMART": ["n_estimators", "num_leaves", "min_child_samples",
                                                              "learning_rate"],
           "LeastSquares": ["alpha"]}


def main():
    protocol = SubsetRankingProtocol(n_repetitions=3, n_train=[10, 50], m=20, p=30, n_test=200)
    rows = []
    for name, candidates in GRID.items():
        for learner in candidates:
            start = time.perf_counter()
            table = pd.concat(protocol.iter_run(GaussianSubsetRanking(), {name: learner}, seed=1))
            loss = table.loc[table.metric == "test_ndcg_loss", "value"]
            params = {k: learner.get_params()[k] for k in CHANGED[name]}
            rows.append({"algorithm": name, **{k: str(v) for k, v in params.items()},
                         "loss_x1000": 1e3 * loss.mean(), "seconds": time.perf_counter() - start})
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    best = table.loc[table.groupby("algorithm")["loss_x1000"].idxmin()]
    print("\nchosen:\n" + best.to_string(index=False))


if __name__ == "__main__":
    main()
