"""The EachMovie protocol of the PRank paper: collaborative filtering as online ranking.

For a target user, the instances are the movies the target rated, in random order; the features of a
movie are the ratings that the *other* kept users gave it, centred so that the middle of the rating
scale is 0 and a missing rating is 0; the rank is the target's rating. Kept users are those with at
least ``min_ratings`` ratings (EachMovie-100 / -200), and curves are cut to the common length.

Ratings are put on the unit scale before centring — level r of k becomes (r − 1)/(k − 1) − ½ — so
EachMovie's six levels give the paper's rating − 0.5 and every data set shares the range [−½, ½].
With an odd number of levels (MovieLens' 1..5) the centre rating (3) maps to 0, exactly like a
missing rating: "rated it average" and "did not rate it" are the same feature value. This is the
paper's convention taken literally, and it is the default (``center="midpoint"``);
``center="user_mean"`` instead centres each feature user's ratings on that user's own mean (a
missing rating is still 0), so a neutral rating is no longer confused with a missing one.

The target's own column is zeroed rather than removed: the learners are linear and start at zero,
so a feature that is 0 throughout a sequence keeps a zero weight and changes nothing.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ordrank.features import transform_stateless
from ordrank.metrics.ordinal import time_averaged
from ordrank.progress import progress
from ordrank.protocols._checks import check_choice, check_positive
from ordrank.protocols.engine import record_steps, run_sequences
from ordrank.results.tables import curve_records

log = logging.getLogger(__name__)
CENTERS = ("midpoint", "user_mean")


def centered_features(matrix: sp.csr_matrix, n_levels: int, center: str = "midpoint") -> sp.csr_matrix:
    """Ranks 1..k (0 = missing) of users × items → items × users feature matrix, missing = 0."""
    if center not in CENTERS:
        raise ValueError(f"center must be one of {CENTERS}, got {center!r}")
    ratings = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    ratings.data = (ratings.data - 1) / (n_levels - 1)
    if center == "midpoint":
        ratings.data -= 0.5
    else:
        counts = np.diff(ratings.indptr)
        means = np.asarray(ratings.sum(axis=1)).ravel() / np.maximum(counts, 1)
        ratings.data -= np.repeat(means, counts)
    return ratings.T.tocsr()  # explicit zeros (rating == centre) are kept: harmless for a dot product


def target_sequences(features: sp.csr_matrix, ratings: sp.csr_matrix, targets, items):
    """Sequences of ``targets`` (rows of ``ratings``, users × items) over the given ``items``.

    ``features`` is items × users (from :func:`centered_features`), ``items`` is (B, T): the movies
    of each target in order. Returns X (B, T, n_users) with each target's own column zeroed, and
    the target's ranks y (B, T).
    """
    targets = np.asarray(targets)
    n_targets, n_rounds = items.shape
    X = features[items.ravel()].toarray().reshape(n_targets, n_rounds, -1)
    X[np.arange(n_targets), :, targets] = 0.0
    y = np.take_along_axis(ratings[targets].toarray(), items, axis=1).astype(np.int64)
    if (y < 1).any():
        raise ValueError("a target's sequence holds a movie it did not rate")
    return X, y


@dataclass
class EachMovieProtocol:
    """Online ranking of each target user's ratings from the other kept users' ratings.

    Parameters
    ----------
    min_ratings : keep users with at least this many ratings (100 or 200 in the paper).
    n_targets : random target users (without replacement among the kept ones); ``None`` = all kept.
        More than there are kept users means all of them (logged).
    n_rounds : rounds per target; ``None`` = ``min_ratings`` (the common length).
    record_every : rounds recorded in the table: 1, every, 2·every, …, and the last.
    batch_size : targets run at once (memory ≈ 8 · batch · rounds · kept users bytes, twice).
    center : ``"midpoint"`` (the paper) or ``"user_mean"``; see the module docstring.
    bias : append a constant feature 1 (an intercept for WH and MCP; PRank's thresholds have one).
    unit_norm : divide each movie's feature vector by its Euclidean norm (before the bias). Not in
        the paper; PRank's thresholds move by 1 per mistake while w·x moves by about ‖x‖², so the
        scale of x decides how much the thresholds matter.
    """

    min_ratings: int = 100
    n_targets: int | None = 500
    n_rounds: int | None = None
    record_every: int = 5
    batch_size: int = 64
    center: str = "midpoint"
    bias: bool = True
    unit_norm: bool = False

    keys = ("seed", "step")  # the table's protocol keys (plus a `user` column)

    def __post_init__(self):
        check_positive(self, ("min_ratings", "n_targets", "n_rounds", "record_every", "batch_size"),
                       optional=("n_targets", "n_rounds"))
        if self.n_rounds is not None and self.n_rounds > self.min_ratings:
            raise ValueError(f"protocol.n_rounds={self.n_rounds} exceeds min_ratings="
                             f"{self.min_ratings}: some targets would have too few ratings")
        check_choice(self, "center", CENTERS)

    def plan(self, ratings, seed: int):
        """Kept users, their ratings, the targets (positions among the kept) and each target's movies."""
        kept = ratings.users_with_at_least(self.min_ratings)
        if len(kept) < 2:
            raise ValueError(f"only {len(kept)} users have >= {self.min_ratings} ratings in "
                             f"{ratings.source}; need at least 2")
        rng = np.random.default_rng(np.random.SeedSequence(seed))
        n_targets = len(kept) if self.n_targets is None else min(self.n_targets, len(kept))
        if self.n_targets is not None and self.n_targets > len(kept):
            log.info("n_targets=%d > %d kept users: using all of them", self.n_targets, len(kept))
        targets = np.sort(rng.choice(len(kept), size=n_targets, replace=False))
        n_rounds = self.n_rounds or self.min_ratings
        kept_ratings = ratings.matrix[kept].tocsr()
        items = np.empty((n_targets, n_rounds), dtype=np.int64)
        for row, target in enumerate(targets):  # one shuffle per target, seeded by the user's row
            own = kept_ratings.indices[kept_ratings.indptr[target]:kept_ratings.indptr[target + 1]]
            order = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(kept[target]),)))
            items[row] = order.permutation(np.sort(own))[:n_rounds]
        return kept, kept_ratings, targets, items

    def finished_pieces(self, table) -> set:
        """The pieces a (partial) table holds: ``(algorithm, first target of the batch)``."""
        starts = table["seed"] - table["seed"] % self.batch_size
        return set(zip(table["algorithm"], starts.astype(int)))

    def iter_run(self, dataset, learners: dict, features=None, seed: int = 0, skip=frozenset()):
        """Yield one tidy table per (batch of targets, learner); ``seed`` numbers the targets.

        Each batch of targets' features is built once and shared by every learner (building them
        costs more than running a learner at EachMovie scale). A target's curve depends on its own
        sequence only, so a batch's rows are final as soon as the learner has run it: each is
        yielded at once (the ``user`` column is the target's id), and a run that is stopped keeps
        every finished batch. A learner that fails is dropped at once and the others go on; the
        failure is raised after the last batch, naming the learner. The pieces in ``skip``
        (:meth:`finished_pieces` of an earlier attempt) are not run again.
        """
        kept, kept_ratings, targets, items = self.plan(dataset, seed)
        feats = centered_features(kept_ratings, dataset.n_levels, self.center)
        steps = record_steps(items.shape[1], self.record_every)
        failed = {}
        starts = range(0, len(targets), self.batch_size)
        with progress(len(starts) * len(learners), "EachMovie batches x learners") as bar:
            for start in starts:
                batch = slice(start, start + self.batch_size)
                if all((name, start) in skip for name in learners):
                    bar.update(len(learners))
                    continue
                X, y = self._batch(feats, kept_ratings, targets[batch], items[batch], features)
                users = np.repeat(dataset.user_ids[kept[targets[batch]]], len(steps))
                for name, learner in learners.items():
                    if name not in failed and (name, start) not in skip:
                        try:
                            losses = run_sequences(learner, X, y, dataset.n_levels)
                        except Exception as error:  # noqa: BLE001 - re-raised below, after the others
                            failed[name] = error
                        else:
                            curves = time_averaged(losses)[:, steps - 1]
                            table = curve_records(curves, steps, algorithm=name,
                                                  metric="time_avg_rank_loss")
                            table["seed"] += start
                            table["user"] = users
                            yield table
                    bar.update()
        if failed:
            name, error = next(iter(failed.items()))
            raise RuntimeError(f"learner {name!r} failed: {error}") from error

    def _batch(self, feats, kept_ratings, targets, items, features=None):
        """Features (B, T, d) and ranks (B, T) of a batch of targets, with the protocol's options."""
        X, y = target_sequences(feats, kept_ratings, targets, items)
        X = transform_stateless(features, X)
        if self.unit_norm:
            norms = np.linalg.norm(X, axis=2, keepdims=True)
            X = np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)
        if self.bias:
            X = np.concatenate([X, np.ones((*y.shape, 1))], axis=2)
        return X, y
