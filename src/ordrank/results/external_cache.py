"""The external learners' results, computed once per library version: a cache kept with the results.

An *external learner* is an established implementation from another library, run beside ordrank's
learners (skordinal, mord, LightGBM, XGBoost); its rows do not depend on ordrank's learners, so a
sweep need not refit it every time. The one rule (:func:`external_package`): a learner is external
when the class of its final estimator is defined outside the ``ordrank`` package, or declares the
library it wraps (``external_package``, the LightGBM and XGBoost adapters). A piece of an external
learner (one learner on one partition) is keyed by :func:`piece_key`: sha256 over the library's
distribution name and version (importlib.metadata), the
learner's parameters (every step of its pipeline, feature map included), its grid, the protocol
settings that decide the piece (given by the protocol: folds, scoring, seed, partition) and a
checksum of the piece's data (:func:`data_checksum`). The key does not cover ordrank's protocol
code (model selection, metrics): bump ``CACHE_VERSION`` when that changes what a piece yields.

Where: ``<results_dir>/<experiment>/external_cache.parquet`` beside the collected table, one row per
row the protocol yielded (timing rows included) plus ``cache_key``, ``package``, ``piece``.
A job reads it (read-only) and writes the external learner pieces it ran to ``<job folder>/external_cache.parquet``
(``from_cache`` says which came from the cache); ``python -m ordrank.results collect ... -o T``
merges the computed ones into ``external_cache.parquet`` beside T (:func:`merge`, atomically). The
setting ``external: cached`` (default) uses the cache; ``external=rerun`` fits every external learner again, logs
any piece whose rows differ from the cache and refreshes it: a run with ``external=rerun``
(``make reproduce EXTERNAL=rerun``) makes the caches.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from ordrank.algorithms.pipelines import final_step
from ordrank.results.files import read_table, write_table

log = logging.getLogger(__name__)
CACHE_VERSION = 1      # part of every key: bump it when the protocol's code changes a piece's rows
FILE = "external_cache.parquet"
FORMER_FILE = "peer_cache.parquet"  # the name before; still read where no external_cache.parquet is
MODES = ("cached", "rerun")
ROW_COLUMNS = ["metric", "value", "params", "status"]  # a piece's rows, as the protocol yields them


def located(path: Path) -> Path:
    """``path`` (an ``external_cache.parquet``), or the file of the former name beside it when only that exists."""
    path = Path(path)
    former = path.with_name(FORMER_FILE)
    return former if not path.is_file() and former.is_file() else path


def external_package(learner) -> str | None:
    """The distribution (``name==version``) of the library an external learner runs, or None for ordrank's own.

    A learner is an external learner when its final estimator's class lives outside ``ordrank`` (its top-level
    module), or when the class names the library it wraps in ``external_package``."""
    cls = type(final_step(learner))
    module = getattr(cls, "external_package", None) or cls.__module__.split(".")[0]
    if module == "ordrank":
        return None
    return _distribution(module)


@functools.lru_cache(maxsize=None)
def _distribution(module: str) -> str | None:
    """``name==version`` of the installed distribution that provides the top-level ``module``."""
    names = importlib.metadata.packages_distributions().get(module, [module])
    try:
        return f"{names[0]}=={importlib.metadata.version(names[0])}"
    except importlib.metadata.PackageNotFoundError:  # not installed as a distribution: no stable key
        return None


def describe(value):
    """A JSON-able description of an estimator (class path and every parameter, recursively)."""
    if hasattr(value, "get_params") and not isinstance(value, type):
        cls = type(value)
        return {"class": f"{cls.__module__}.{cls.__qualname__}",
                "params": {k: describe(v) for k, v in sorted(value.get_params(deep=False).items())}}
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): describe(v) for k, v in sorted(value.items())}
    if isinstance(value, np.generic):
        return value.item()
    return value if value is None or isinstance(value, (bool, int, float, str)) else repr(value)


def data_checksum(*arrays) -> str:
    """sha256 over each array's dtype, shape and bytes (read through the array's buffer: no copy of a
    contiguous array, such as a fold's X)."""
    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.reshape(-1).view(np.uint8))
    return digest.hexdigest()


def piece_key(learner, grid: dict, settings: dict, checksum) -> tuple[str, str] | None:
    """``(key, package)`` of one external learner piece, or None when ``learner`` is not an external learner.
    ``checksum()`` gives the piece's :func:`data_checksum` (called for an external learner only)."""
    package = external_package(learner)
    if package is None:
        return None
    spec = {"version": CACHE_VERSION, "package": package, "learner": describe(learner),
            "grid": describe(grid), "protocol": describe(settings), "data": checksum()}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest(), package


class ExternalCache:
    """One run's view of the cache: look up external learner pieces, remember the ones it ran.

    ``committed``: the experiment's cache (read once, never written by a job); ``job_file``: where
    the job writes the external learner pieces it ran (:meth:`write`); ``mode``: ``cached`` or ``rerun``."""

    def __init__(self, committed: Path | None, job_file: Path | None, mode: str = "cached"):
        if mode not in MODES:
            raise ValueError(f"external must be one of {', '.join(MODES)}, got {mode!r}")
        committed = located(committed) if committed is not None else None
        self.committed, self.job_file, self.mode = committed, job_file, mode
        self.table = _read(committed) if committed is not None and committed.is_file() \
            else pd.DataFrame(columns=["cache_key"])
        self.index = self.table.groupby("cache_key").indices  # key -> its rows' positions, in order
        self.ran, self.hits, self.computed, self.differ = [], 0, 0, 0

    def rows(self, key_package, piece: dict, compute) -> list[tuple]:
        """A piece's rows: from the cache when its key is there (and mode is ``cached``), else
        ``compute()``; a rerun whose rows (timings aside) differ from the cache's is logged."""
        if key_package is None:
            return compute()
        key, package = key_package
        cached = self.table.iloc[self.index[key]][ROW_COLUMNS].reset_index(drop=True) \
            if key in self.index else None
        if cached is not None and self.mode == "cached":
            self.hits += 1
            self._remember(key, package, piece, cached, True)
            return list(cached.itertuples(index=False, name=None))
        rows = compute()
        self.computed += 1
        if cached is not None and not same_rows(pd.DataFrame(rows, columns=ROW_COLUMNS), cached):
            self.differ += 1
            log.warning("external learner piece %s: rerun rows differ from the cache %s (key %s)", piece,
                        self.committed, key[:12])
        self._remember(key, package, piece, pd.DataFrame(rows, columns=ROW_COLUMNS), False)
        return rows

    def _remember(self, key, package, piece, rows, from_cache):
        self.ran.append(rows.assign(cache_key=key, package=package, piece=json.dumps(piece, sort_keys=True),
                                    from_cache=from_cache))

    def summary(self) -> str:
        return (f"external learner pieces: {self.hits} from the cache {self.committed}, {self.computed} computed"
                + (f" ({self.differ} differ from the cache)" if self.differ else ""))

    def write(self, experiment: str = "") -> Path | None:
        """Write the external learner pieces this run used to ``job_file`` and log the summary (nothing when
        the run used no external learner)."""
        if self.job_file is None or not self.ran:
            return None
        log.info("%s: %s", experiment, self.summary())
        return write_table(cache_table(self.ran), self.job_file)


def _read(path: Path) -> pd.DataFrame:
    """The cache at ``path`` (its key and row columns), or a ValueError naming the file."""
    try:
        return read_table(path)[["cache_key", *ROW_COLUMNS]]
    except Exception as error:  # any unreadable cache: one clear message
        raise ValueError(f"external cache {path} cannot be read ({type(error).__name__}: {error}); restore it "
                         "(git checkout) or remove it, and its pieces are computed again") from error


def cache_table(parts) -> pd.DataFrame:
    table = pd.concat(parts, ignore_index=True)
    return table[["cache_key", "package", "piece", *ROW_COLUMNS,
                  *(["from_cache"] if "from_cache" in table else [])]]


TIMINGS = ("fit_seconds", "cv_seconds")


def same_rows(a: pd.DataFrame, b: pd.DataFrame, timings=TIMINGS) -> bool:
    """Whether two pieces' rows are equal, the measured seconds aside (NaN equals NaN)."""
    a, b = (t[~t["metric"].isin(timings)][ROW_COLUMNS].reset_index(drop=True) for t in (a, b))
    return a.equals(b)


def attach(cfg, protocol, output_dir: Path) -> ExternalCache:
    """The run's cache, given to ``protocol`` when it can use one (it has a ``external_cache`` attribute):
    ``<results_dir>/<experiment>/external_cache.parquet`` read, ``<output_dir>/external_cache.parquet``
    written. For any other protocol a cache that is never used (its :meth:`~ExternalCache.write` is a no-op)."""
    mode = cfg.get("external", "cached")
    if not hasattr(protocol, "external_cache"):
        return ExternalCache(None, None, mode)
    committed = Path(cfg.get("results_dir") or "results") / str(cfg.experiment) / FILE
    protocol.external_cache = ExternalCache(committed, Path(output_dir) / FILE, mode)
    return protocol.external_cache


def _used(job_files) -> pd.DataFrame | None:
    parts = [read_table(path) for path in job_files]
    return pd.concat(parts, ignore_index=True) if parts else None


def tally(job_files) -> str:
    """What the jobs' ``external_cache.parquet`` files say: pieces (and rows) from the cache, computed."""
    used = _used(job_files)
    if used is None:
        return "no external learner piece"
    first = used.drop_duplicates("cache_key")["from_cache"]
    return (f"{int(first.sum())} external learner pieces ({int(used['from_cache'].sum())} rows) "
            f"from the external cache, "
            f"{int((~first).sum())} computed")


def merge(job_files, out_table: Path) -> str | None:
    """Merge the pieces the jobs computed (their ``external_cache.parquet``) into the cache beside
    ``out_table``, atomically: a computed piece replaces a cached one of the same key (``external=rerun``).
    Returns a one-line summary (:func:`tally`), or None when no job used an external learner."""
    job_files = list(job_files)
    used = _used(job_files)
    if used is None:
        return None
    new = used[~used["from_cache"].astype(bool)].drop(columns="from_cache")
    target = Path(out_table).with_name(FILE)
    if len(new):
        old = [read_table(located(target))] if located(target).is_file() else []
        kept = [t[~t["cache_key"].isin(set(new["cache_key"]))] for t in old]
        write_table(cache_table([*kept, new]).reset_index(drop=True), target)
    added = f"; {new['cache_key'].nunique()} added" if len(new) else ""
    return f"external cache {target}: {tally(job_files)}{added}"
