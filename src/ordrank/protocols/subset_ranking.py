r"""The subset-ranking protocol of the Predtron paper's Figure 1 (Jain, Natarajan & Tewari, NIPS 2015).

For each repetition r = 0..R−1 and each grid point (m, p) a *task* is drawn (w* and the generator's
centres, :mod:`ordrank.datasets.subset_ranking`), then a test set of ``n_test`` queries and a pool of
max(n_train) training queries. Each learner is trained on the first n queries of the pool, for each
n in ``n_train``, and scored on the test set. Rows (metric, value) per (algorithm, seed = r,
passes_mode, n_train, m, p):

- ``test_ndcg_loss``: mean of 1 − NDCG over the test queries (the figure's y-axis);
- ``train_ndcg_loss``: the same over the n training queries, with the final model (0 exactly when
  it ranks every training query ideally, i.e. a further pass would make no mistake);
- ``passes``: passes made over the training queries.

Passes (``passes_mode``, a key; ``protocol.passes_mode`` lists the interpretations to run). An online
learner runs once per listed mode: ``until_separated`` is the learner as configured (passes until
one makes no mistake, capped at its ``n_epochs``, when ``stop_when_separated`` is set), ``one`` is
a single online pass over the n queries (the learner with ``n_epochs=1, stop_when_separated=False``).
A batch ranker (no online rule) is fitted once, with ``passes_mode = batch``.

Streams: ``SeedSequence(seed, spawn_key=(r, m, p))`` spawns three generators, for the task, the
test set and the training pool, so each is the same whatever the grid or the number of
repetitions, and the training set of size n is the same in every run with n in the grid.

Training. An online learner that is a :class:`~ordrank.algorithms.online._base.Rule` (as
:class:`~ordrank.algorithms.structured.PredtronRanker` is) runs, when ``vectorize`` is true and it
does not shuffle, on every (repetition, n) copy at once: each round gives every copy one query as
a dense (m, p) block (the rule's instance), each pass visits queries 1..n of each copy in order,
and a copy stops after its first pass without a mistake (``learner.loss`` > 0 on no query) when
the learner's ``stop_when_separated`` is set, else after ``n_epochs`` passes — what the learner's
own ``fit`` does, copy by copy (a test checks they agree). Any other ranker is cloned and fitted
on each copy's rows (``fit(X, y, qid)``, ``decision_function(X)`` → one score per row, ranked
per query), which is also what ``vectorize=false`` does for every learner; these fits run in
``n_jobs`` worker processes (joblib), one job per repetition, with the same table whatever
``n_jobs`` (each fit is deterministic and the rows keep their order). Copies are batched by
repetitions so that the batched training pools stay under ``MAX_POOL_BYTES``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone

from ordrank.algorithms.online import Rule
from ordrank.algorithms.structured.spaces import positions_of
from ordrank.metrics.ranking import ndcg_loss
from ordrank.progress import progress
from ordrank.protocols._checks import check_positive

MAX_POOL_BYTES = 200e6  # training pools held at once (float64) by the batched engine
METRICS = ("test_ndcg_loss", "train_ndcg_loss", "passes")
PASSES_MODES = ("until_separated", "one")  # the online learners' interpretations; batch rankers: "batch"


def _grid(owner, name, minimum=1) -> list[int]:
    """``protocol.<name>`` as a sorted list of distinct integers >= minimum (an int is one point)."""
    value = getattr(owner, name)
    values = [value] if isinstance(value, (int, np.integer)) and not isinstance(value, bool) else value
    if not isinstance(values, (list, tuple)) or not values or any(
            isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum for v in values):
        raise ValueError(f"protocol.{name} must be an integer >= {minimum} or a non-empty list of them, "
                         f"got {value!r}")
    if len(set(values)) != len(values):
        raise ValueError(f"protocol.{name} lists a value twice: {list(values)}")
    return sorted(int(v) for v in values)


def mean_ndcg_loss(scores: np.ndarray, relevance: np.ndarray) -> float:
    """Mean 1 − NDCG of the rankings that sort ``scores`` (…, m) against ``relevance`` (…, m)."""
    m = scores.shape[-1]
    return float(ndcg_loss(positions_of(scores).reshape(-1, m), relevance.reshape(-1, m)).mean())


def vectorizable(learner) -> bool:
    """Whether the batched engine reproduces ``learner.fit``: the online rule, queries in order."""
    return online(learner) and not getattr(learner, "shuffle", False)


def online(learner) -> bool:
    """Whether ``learner`` is an online rule whose number of passes the protocol can set."""
    return isinstance(learner, Rule) and all(hasattr(learner, a) for a in ("n_epochs", "stop_when_separated"))


def interpretations(learner, modes) -> list:
    """(passes_mode, learner) pairs to run: an online learner once per mode (``one``: a clone making a
    single pass), any other ranker once as ``batch``."""
    if not online(learner):
        return [("batch", learner)]
    one = clone(learner).set_params(n_epochs=1, stop_when_separated=False)
    return [(mode, learner if mode == "until_separated" else one) for mode in modes]


def flat(X, y):
    """Dense queries X (n, m, p), y (n, m) as rows with their query ids: (n·m, p), (n·m,), qid."""
    n, m = y.shape
    return X.reshape(n * m, -1), y.reshape(-1), np.repeat(np.arange(n), m)


def batched_passes(learner, X, y, owner, sizes, bar=None):
    """Run ``learner``'s online rule on copies c = 0..C−1 at once: copy c makes passes over the first
    ``sizes[c]`` queries of ``X[owner[c]]`` (pools X (R, N, m, p), y (R, N, m)), in order, from zero.

    A copy stops after a pass without a mistake if ``learner.stop_when_separated``, else after
    ``learner.n_epochs`` passes. Returns the weights (C, p) and the passes made (C,).
    """
    sizes, owner = np.asarray(sizes), np.asarray(owner)
    state = learner.init_state(len(sizes), X.shape[-1])
    passes = np.zeros(len(sizes), dtype=np.int64)
    active = np.ones(len(sizes), dtype=bool)
    for _ in range(learner.n_epochs):
        running = np.flatnonzero(active)
        mistakes = np.zeros(len(sizes), dtype=np.int64)
        for q in range(int(sizes[running].max())):
            copies = running[sizes[running] > q]
            sub = {key: value[copies] for key, value in state.items()}
            relevance = y[owner[copies], q]
            if hasattr(learner, "step_and_loss"):  # the round's own losses (not computed twice)
                losses = learner.step_and_loss(sub, X[owner[copies], q], relevance)[1]
            else:
                losses = learner.loss(relevance, learner.step(sub, X[owner[copies], q], relevance))
            for key, value in sub.items():
                state[key][copies] = value
            mistakes[copies] += np.asarray(losses) > 0
        passes[running] += 1
        if bar is not None:
            bar.update(1)
        if learner.stop_when_separated:
            active[running[mistakes[running] == 0]] = False
            if not active.any():
                break
    if bar is not None:
        bar.update(learner.n_epochs - int(passes.max()))
    return state["coef"], passes


@dataclass
class SubsetRankingProtocol:
    """R repetitions × the grid n_train × m × p; each learner trained on n queries, tested on n_test.

    ``n_train``, ``m`` and ``p`` are an integer or a list (the grid is their product).
    """

    n_repetitions: int = 20
    n_train: list = field(default_factory=lambda: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100])
    m: list | int = 20
    p: list | int = 30
    n_test: int = 200
    vectorize: bool = True
    passes_mode: list = field(default_factory=lambda: ["until_separated"])
    n_jobs: int = -1  # worker processes for the batch rankers' fits (-1: every core); same table

    keys = ("seed", "passes_mode", "n_train", "m", "p")  # the table's protocol keys

    def __post_init__(self):
        check_positive(self, ("n_repetitions", "n_test"))
        if isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, (int, np.integer)) or self.n_jobs == 0:
            raise ValueError(f"protocol.n_jobs must be a non-zero integer (-1: every core), got {self.n_jobs!r}")
        self.n_train = _grid(self, "n_train")
        self.m = _grid(self, "m", minimum=2)
        self.p = _grid(self, "p")
        if not isinstance(self.vectorize, bool):
            raise ValueError(f"protocol.vectorize must be true or false, got {self.vectorize!r}")
        modes = [self.passes_mode] if isinstance(self.passes_mode, str) else self.passes_mode
        if not isinstance(modes, (list, tuple)) or not modes or any(m not in PASSES_MODES for m in modes) \
                or len(set(modes)) != len(modes):
            raise ValueError(f"protocol.passes_mode must be one of {list(PASSES_MODES)} or a list of distinct "
                             f"ones, got {self.passes_mode!r}")
        self.passes_mode = [m for m in PASSES_MODES if m in modes]

    def streams(self, seed: int, repetition: int, m: int, p: int):
        """Generators for the task, the test set and the training pool of one repetition and (m, p)."""
        sequence = np.random.SeedSequence(seed, spawn_key=(repetition, m, p))
        return [np.random.default_rng(s) for s in sequence.spawn(3)]

    def chunks(self, m: int, p: int) -> list[range]:
        """Repetitions batched so that their training pools stay under MAX_POOL_BYTES."""
        per_repetition = max(self.n_train) * m * p * 8
        size = max(1, int(MAX_POOL_BYTES // per_repetition))
        return [range(s, min(s + size, self.n_repetitions)) for s in range(0, self.n_repetitions, size)]

    @staticmethod
    def finished_pieces(table) -> set:
        """The pieces a (partial) table holds: ``(algorithm, passes_mode, m, p)``."""
        columns = ["algorithm", "passes_mode", "m", "p"]
        return {(a, mode, int(m), int(p)) for a, mode, m, p in
                table[columns].drop_duplicates().itertuples(index=False, name=None)}

    def iter_run(self, dataset, learners: dict, features=None, seed: int = 0, skip=frozenset()):
        """Yield one tidy table per (learner, interpretation, grid point (m, p)): rows for every repetition
        and n, except the pieces in ``skip`` (:meth:`finished_pieces` of an earlier attempt)."""
        if features is not None:
            raise ValueError("protocol subset_ranking takes the generator's features as they are: "
                             "use features=none")
        if not callable(getattr(dataset, "task", None)):
            raise ValueError(f"dataset {type(dataset).__name__} has no task(rng, m, p): protocol "
                             "subset_ranking needs a subset-ranking generator "
                             "(dataset=subset_ranking or subset_ranking_sparse)")
        for name, learner in learners.items():
            if not (vectorizable(learner) or (hasattr(learner, "fit")
                                              and hasattr(learner, "decision_function"))):
                raise ValueError(f"algorithms.{name} ({type(learner).__name__}) is not a ranker: it needs "
                                 "fit(X, y, qid) and decision_function(X)")
        points = [(m, p) for m in self.m for p in self.p]
        runs = [(name, mode, learner) for name, learner in learners.items()
                for mode, learner in interpretations(learner, self.passes_mode)]
        total = sum(len(self.chunks(m, p)) for m, p in points) * sum(
            getattr(learner, "n_epochs", 1) for _, _, learner in runs)
        pieces = [(name, mode, m, p, learner) for m, p in points for name, mode, learner in runs]
        workers = effective_n_jobs(self.n_jobs)
        with progress(total, "subset ranking", unit="pass") as bar:  # a piece's first four: its key
            bar.update(sum(self._passes(piece[2], piece[3], piece[4]) for piece in pieces if piece[:4] in skip))
            pieces = [piece for piece in pieces if piece[:4] not in skip]
            # runs of online pieces (one process each, vectorized) go to `workers` processes at once,
            # in order (a piece depends on its seed, m and p only: the same table); a batch ranker's
            # pieces run here, their repetitions in the workers (_run_chunk)
            for batch, run in groupby(pieces, key=lambda piece: self.vectorize and vectorizable(piece[4])):
                run = list(run)
                parallel = batch and workers > 1 and len(run) > 1
                tables = (Parallel(n_jobs=min(workers, len(run)), return_as="generator")(
                    delayed(self._piece)(dataset, learner, seed, m, p) for _, _, m, p, learner in run)
                    if parallel else
                    (self._piece(dataset, learner, seed, m, p, bar) for _, _, m, p, learner in run))
                for (name, mode, m, p, learner), table in zip(run, tables):
                    bar.update(self._passes(m, p, learner) if parallel else 0)
                    table.insert(0, "algorithm", name)
                    table.insert(2, "passes_mode", mode)
                    yield table

    def _passes(self, m, p, learner) -> int:
        return len(self.chunks(m, p)) * getattr(learner, "n_epochs", 1)

    def _piece(self, dataset, learner, seed, m, p, bar=None) -> pd.DataFrame:
        chunks = [self._run_chunk(dataset, learner, seed, m, p, chunk, bar) for chunk in self.chunks(m, p)]
        return pd.concat(chunks, ignore_index=True)

    def _run_chunk(self, dataset, learner, seed, m, p, chunk, bar) -> pd.DataFrame:
        tasks, test_rngs, pools = [], [], []
        for r in chunk:
            task_rng, test_rng, train_rng = self.streams(seed, r, m, p)
            task = dataset.task(task_rng, m, p)
            tasks.append(task)
            test_rngs.append(test_rng)
            pools.append(task.sample(train_rng, max(self.n_train)))
        X = np.stack([pool[0] for pool in pools])
        y = np.stack([pool[1] for pool in pools])
        # each repetition's test set is drawn when its turn comes (one at a time in memory)
        tests = (tasks[o].sample(test_rngs[o], self.n_test) for o in range(len(chunk)))
        if self.vectorize and vectorizable(learner):
            owner = np.repeat(np.arange(len(chunk)), len(self.n_train))
            coef, passes = batched_passes(learner, X, y, owner, np.tile(self.n_train, len(chunk)), bar)
            coef, passes = coef.reshape(len(chunk), len(self.n_train), -1), passes.reshape(len(chunk), -1)
            values = [[(passes[o, k], mean_ndcg_loss(X_test @ w, y_test), mean_ndcg_loss(X[o, :n] @ w, y[o, :n]))
                       for k, (n, w) in enumerate(zip(self.n_train, coef[o]))]
                      for o, (X_test, y_test) in enumerate(tests)]
        else:  # one job per repetition: fit on its first n queries for each n, score
            jobs = (delayed(fit_and_score)(learner, X[o], y[o], self.n_train, X_test, y_test)
                    for o, (X_test, y_test) in enumerate(tests))
            values = Parallel(n_jobs=min(effective_n_jobs(self.n_jobs), len(chunk)))(jobs)
            if bar is not None:
                bar.update(getattr(learner, "n_epochs", 1))
        rows = []
        for o, r in enumerate(chunk):
            for n, (passes_made, test_loss, train_loss) in zip(self.n_train, values[o]):
                found = {"test_ndcg_loss": test_loss, "train_ndcg_loss": train_loss, "passes": float(passes_made)}
                rows += [(r, n, m, p, metric, found[metric]) for metric in METRICS if not np.isnan(found[metric])]
        return pd.DataFrame(rows, columns=["seed", "n_train", "m", "p", "metric", "value"])


def fit_and_score(learner, X, y, n_train, X_test, y_test) -> list[tuple[float, float, float]]:
    """A clone of ``learner`` fitted on the first n queries of the pool X (N, m, p), y (N, m) for each
    n in ``n_train``: (passes made, or NaN for a batch ranker; test NDCG loss; train NDCG loss)."""
    out = []
    for n in n_train:
        model = clone(learner).fit(*flat(X[:n], y[:n]))
        score = _scorer(model)
        out.append((float(getattr(model, "n_epochs_", np.nan)), score(X_test, y_test), score(X[:n], y[:n])))
    return out


def _scorer(model):
    """Mean NDCG loss of the rankings a fitted ranker's scores give the dense queries X (n, m, p)."""
    def score(X, y):
        return mean_ndcg_loss(model.decision_function(flat(X, y)[0]).reshape(y.shape), y)
    return score
