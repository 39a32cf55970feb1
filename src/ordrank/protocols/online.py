"""The synthetic online protocol: S sequences of T rounds from a generator, through the engine."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ordrank.features import transform_stateless
from ordrank.metrics.ordinal import time_averaged
from ordrank.protocols._checks import check_positive
from ordrank.protocols.engine import record_steps, run_sequences
from ordrank.results.tables import curve_records


@dataclass
class OnlineSequences:
    """S independent sequences of T rounds from an online generator; every learner sees the same ones.

    Sequence i is drawn with ``numpy.random.SeedSequence(seed, spawn_key=(i,))``, so it does not depend
    on S, and the ``seed`` column of the table is i.
    """

    n_sequences: int = 100
    n_rounds: int = 7000
    record_every: int = 50

    keys = ("seed", "step")  # the table's protocol keys

    def __post_init__(self):
        check_positive(self, ("n_sequences", "n_rounds", "record_every"))

    @staticmethod
    def finished_pieces(table) -> set:
        """The pieces a (partial) table holds: one per learner, ``(algorithm,)``."""
        return {(name,) for name in table["algorithm"].unique()}

    def iter_run(self, dataset, learners: dict, features=None, seed: int = 0, skip=frozenset()):
        """Yield one tidy table per learner (columns algorithm, seed, step, metric, value), except
        the learners in ``skip`` (:meth:`finished_pieces` of an earlier attempt)."""
        rngs = [np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,)))
                for i in range(self.n_sequences)]
        X, y = dataset.sequences(rngs, self.n_rounds)
        X = transform_stateless(features, X)
        steps = record_steps(self.n_rounds, self.record_every)
        for name, learner in learners.items():
            if (name,) in skip:
                continue
            curves = time_averaged(run_sequences(learner, X, y, dataset.n_ranks))
            yield curve_records(curves[:, steps - 1], steps, algorithm=name,
                                metric="time_avg_rank_loss")
