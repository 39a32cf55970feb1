"""Rating matrices of collaborative-filtering data sets: MovieLens and EachMovie loaders.

Every loader returns a :class:`Ratings`: a sparse users x items matrix of ranks 1..k (the
original rating values are kept in ``levels``), with the original user and item ids.
All loaders share one parser, which reads the file with pandas' C engine and, when a line is
malformed, reports the file, the 1-based line number, what is wrong and the line itself: a wrong
number of fields; an id that is not a positive integer (MovieLens ids start at 1; EachMovie's are
only required to be integers >= 0, its documentation being unavailable); a rating that is not one
of the levels; a MovieLens timestamp that is not an integer >= 0; a (user, item) pair rated
twice. A missing file names the paths tried and the command that fetches it.
"""
from __future__ import annotations

import csv
import hashlib
import io
import itertools
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ordrank.datasets.data_dir import find_file, resolve_data_dir

PUBLISHED_FILES = {
    "movielens-100k/u.data": (1979173, "06416e597f82b7342361e41163890c81036900f418ad91315590814211dca490"),
}
"""Size in bytes and sha256 of published files, keyed by ``<data set>/<file name>``.

A loaded file of exactly the published size must have the published hash; a file of another
size loads with a warning. Files without an entry are not checked.
"""

MOVIELENS_SOURCE = "MovieLens is available from GroupLens: https://grouplens.org/datasets/movielens/"
EACHMOVIE_SOURCE = (
    "EachMovie was withdrawn by Compaq/HP and is distributed only under controlled access; "
    "see the 'eachmovie' community on Zenodo (https://zenodo.org/communities/eachmovie)"
)
MOVIELENS_VARIANTS = {"1m": ("ml-1m", np.arange(1.0, 6.0)), "10m": ("ml-10M100K", np.arange(1, 11) / 2)}
"""Folder (as unzipped from GroupLens) and rating levels of each ``ratings.dat`` variant."""


@dataclass(frozen=True, eq=False)
class Ratings:
    """A users x items matrix of ordinal ratings.

    Attributes
    ----------
    matrix : scipy.sparse.csr_matrix
        ``n_users x n_items``, dtype int8, ranks 1..k; missing ratings are not stored.
    levels : numpy.ndarray
        Original rating value of rank ``r`` at ``levels[r - 1]``, increasing.
    user_ids : numpy.ndarray
        Original id of each row.
    item_ids : numpy.ndarray
        Original id of each column.
    source : str
        File path or generator description.
    """

    matrix: sp.csr_matrix
    levels: np.ndarray
    user_ids: np.ndarray
    item_ids: np.ndarray
    source: str

    @property
    def n_levels(self) -> int:
        """Number of rating levels k."""
        return len(self.levels)

    @property
    def n_ratings(self) -> int:
        """Number of stored ratings."""
        return self.matrix.nnz

    def users_with_at_least(self, n: int) -> np.ndarray:
        """Row indices, sorted, of the users with at least `n` ratings."""
        return np.flatnonzero(np.diff(self.matrix.indptr) >= n)


def load_movielens_100k(data_dir: str | os.PathLike | None = None) -> Ratings:
    """Load MovieLens-100K ``u.data`` (tab-separated ``user item rating timestamp``, ratings 1..5).

    Parameters
    ----------
    data_dir : path, optional
        Data directory (see :func:`resolve_data_dir`); the file is read from
        ``<data_dir>/movielens-100k/u.data``, else ``<data_dir>/ml-100k/u.data``.

    Returns
    -------
    Ratings
        Ranks 1..5, ``levels = [1, 2, 3, 4, 5]``.
    """
    root = resolve_data_dir(data_dir)
    path = find_file("MovieLens-100K u.data", [root / "movielens-100k" / "u.data", root / "ml-100k" / "u.data"],
                 _fetch_hint("movielens-100k", root, MOVIELENS_SOURCE))
    return _read_ratings(path, "\t", 4, np.arange(1.0, 6.0), "movielens-100k/u.data", min_id=1,
                         timestamp=3)


def load_movielens(path_or_data_dir: str | os.PathLike | None = None, variant: str = "1m") -> Ratings:
    """Load MovieLens-1M or -10M ``ratings.dat`` (``UserID::MovieID::Rating::Timestamp``).

    Parameters
    ----------
    path_or_data_dir : path, optional
        The ``ratings.dat`` file itself, or a data directory (see :func:`resolve_data_dir`) holding
        ``ml-1m/ratings.dat`` or ``ml-10M100K/ratings.dat``.
    variant : {"1m", "10m"}
        "1m": ratings 1..5; "10m": ratings 0.5..5 in half steps (10 levels).

    Returns
    -------
    Ratings
        Ranks 1..k with the variant's levels; other rating values are rejected.
    """
    if variant not in MOVIELENS_VARIANTS:
        raise ValueError(f"variant must be one of {sorted(MOVIELENS_VARIANTS)}, got {variant!r}")
    folder, levels = MOVIELENS_VARIANTS[variant]
    given = resolve_data_dir(path_or_data_dir)
    candidates = [given] if given.is_file() else [given / folder / "ratings.dat"]
    path = find_file(f"MovieLens-{variant.upper()} ratings.dat", candidates,
                 _fetch_hint(f"movielens-{variant}", given, MOVIELENS_SOURCE))
    return _read_ratings(path, "::", 4, levels, f"{folder}/ratings.dat", min_id=1, timestamp=3)


def load_eachmovie(data_dir: str | os.PathLike | None = None) -> Ratings:
    """Load EachMovie ``Vote.txt`` (tab-separated ``Person_ID Movie_ID Score Weight Modified``).

    Parameters
    ----------
    data_dir : path, optional
        Data directory (see :func:`resolve_data_dir`); the file is ``<data_dir>/eachmovie/Vote.txt``.

    Returns
    -------
    Ratings
        Scores 0, 0.2, ..., 1.0 as ranks 1..6, ``levels = [0, 0.2, 0.4, 0.6, 0.8, 1]``.
    """
    root = resolve_data_dir(data_dir)
    path = find_file("EachMovie Vote.txt", [root / "eachmovie" / "Vote.txt"], EACHMOVIE_SOURCE)
    return _read_ratings(path, "\t", 5, np.linspace(0.0, 1.0, 6), "eachmovie/Vote.txt", min_id=0)


def _fetch_hint(name: str, root: Path, source: str) -> str:
    """Where set ``name`` comes from and the command that fetches it into ``root``."""
    return f"{source}; or get it with: python -m ordrank.data fetch {name} --data-dir {root}"


def _read_ratings(path: Path, sep: str, n_fields: int, levels: np.ndarray, key: str, *, min_id: int,
                  timestamp: int | None = None) -> Ratings:
    """Parse a ``user<sep>item<sep>rating<sep>...`` file of exactly `n_fields` fields per line.

    The file is checked against ``PUBLISHED_FILES[key]`` when that entry exists. Ids must be
    integers >= `min_id`; ratings must equal one of `levels` (to 1e-6); field `timestamp` (0-based),
    if given, must be an integer >= 0; each (user, item) pair must appear once. Windows line ends
    (CRLF) are accepted.
    """
    raw = path.read_bytes()
    if key in PUBLISHED_FILES:
        _check_published(path, raw, *PUBLISHED_FILES[key])
    text = raw.replace(b"\r\n", b"\n").replace(sep.encode(), b"\t")
    chars = np.frombuffer(text, np.uint8)
    line_ends = np.flatnonzero(chars == ord("\n"))
    if chars.size and chars[-1] != ord("\n"):
        line_ends = np.append(line_ends, chars.size)
    if line_ends.size == 0:
        raise ValueError(f"{path} is empty")
    fields = np.diff(np.searchsorted(np.flatnonzero(chars == ord("\t")), line_ends), prepend=0) + 1
    wrong = np.flatnonzero(fields != n_fields)
    if wrong.size:
        raise _bad_line(path, wrong[0],
                        f"expected {n_fields} fields separated by {sep!r}, found {fields[wrong[0]]}")

    columns = [0, 1, 2] + ([] if timestamp is None else [timestamp])
    table = pd.read_csv(io.BytesIO(text), sep="\t", header=None, usecols=columns, lineterminator="\n",
                        quoting=csv.QUOTE_NONE, skip_blank_lines=False, engine="c")
    fields = {c: pd.to_numeric(table[c], errors="coerce").to_numpy(np.float64) for c in columns}
    user, item, score = fields[0], fields[1], fields[2]
    nearest = np.clip(np.searchsorted(levels, score), 1, len(levels) - 1)
    nearest -= score - levels[nearest - 1] < levels[nearest] - score
    ids = f"user and item ids must be integers >= {min_id}"
    checks = [  # (ok per line, what is wrong), in the order of the fields
        (_integers(user, min_id), ids + " (user id {0!r})"),
        (_integers(item, min_id), ids + " (item id {1!r})"),
        (np.abs(levels[nearest] - score) <= 1e-6, f"rating must be one of {levels.tolist()}, got {{2!r}}"),
    ]
    if timestamp is not None:
        checks.append((_integers(fields[timestamp], 0), "timestamp must be an integer >= 0 (seconds "
                       f"since 1970), got {{{timestamp}!r}}"))
    ok = np.logical_and.reduce([line_ok for line_ok, _ in checks])
    if not ok.all():
        line = np.flatnonzero(~ok)[0]
        reason = next(what for line_ok, what in checks if not line_ok[line])
        raise _bad_line(path, line, reason.format(*_line(path, line).split(sep)))

    rows, user_ids = pd.factorize(user.astype(np.int64), sort=True)
    cols, item_ids = pd.factorize(item.astype(np.int64), sort=True)
    matrix = sp.csr_matrix(((nearest + 1).astype(np.int8), (rows, cols)),
                           shape=(len(user_ids), len(item_ids)))
    if matrix.nnz < len(rows):
        pair = rows.astype(np.int64) * len(item_ids) + cols
        order = np.argsort(pair, kind="stable")
        line = order[1:][pair[order[1:]] == pair[order[:-1]]].min()
        first = np.flatnonzero(pair == pair[line])[0]
        raise _bad_line(path, line, f"duplicate rating of user {user_ids[rows[line]]} for item "
                                    f"{item_ids[cols[line]]} (first given on line {first + 1})")
    matrix.eliminate_zeros()
    return Ratings(matrix, levels.copy(), user_ids, item_ids, str(path))


def _integers(values: np.ndarray, least: int) -> np.ndarray:
    """Per entry: a finite whole number >= ``least`` (NaN, from a non-numeric field, is not)."""
    with np.errstate(invalid="ignore"):
        return np.isfinite(values) & (values == np.floor(values)) & (values >= least)


def _check_published(path: Path, raw: bytes, size: int, sha256: str) -> None:
    """Raise if `raw` has the published size but not the published sha256; warn if the size differs."""
    if len(raw) != size:
        warnings.warn(f"{path} has {len(raw)} bytes, not the {size} of the published file: "
                      "it is not the published data", UserWarning, stacklevel=4)
        return
    digest = hashlib.sha256(raw).hexdigest()
    if digest != sha256:
        raise ValueError(f"{path} has the published size but sha256 {digest} instead of the published "
                         f"{sha256}: the download is corrupted, fetch it again")


def _bad_line(path: Path, index: int, reason: str) -> ValueError:
    """ValueError naming `path`, the 1-based line number of row `index`, `reason` and the line itself."""
    return ValueError(f"{path}, line {index + 1}: {reason}: {_line(path, index)!r}")


def _line(path: Path, index: int) -> str:
    """Line `index` (0-based) of the file, without its line end."""
    with open(path, "rb") as f:
        return next(itertools.islice(f, index, None)).decode(errors="replace").rstrip("\r\n")
