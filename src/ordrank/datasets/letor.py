"""LETOR ranking data: SVMlight lines with query ids, and the fold layouts of LETOR 3.0 and 4.0.

A line is ``label qid:Q 1:v1 2:v2 ... #docid = D ...``: an integer relevance grade (0 = not relevant),
the query id, 1-based feature indices in increasing order, and an optional comment whose ``docid``
names the document. scikit-learn's ``load_svmlight_file(..., query_id=True)`` parses the numbers; a
light pass over the lines first checks what it does not (or reports without a line number), so that
every error names the file and the 1-based line: a query id appearing again after another query
(rows of a query must be contiguous), a query id beyond int64, a feature index beyond ``n_features``
or beyond what the parser and memory allow (2^31 − 1, and a dense X of at most ``MAX_DENSE_BYTES``),
a label that is not a non-negative integer, a malformed token, a file without any query. Lines end
with LF, CRLF or a lone CR (old Mac files).

Folds (:func:`letor_folds`), for whatever folder ``path`` is (or its ``QueryLevelNorm/`` subfolder):

- LETOR 4.0 (MQ2007, MQ2008, MSLR-WEB10K/30K, and LETOR 3.0 OHSUMED as distributed):
  ``Fold<k>/{train,vali,test}.txt``;
- LETOR 3.0 (the .gov sets): ``Fold<k>/{trainingset,validationset,testset}.txt``;
- subsets ``S1.txt .. Sn.txt`` (n >= 3; the project's ``letor3-ohsumed/QueryLevelNorm/``) with the
  standard rotation: fold i trains on S_i .. S_{i+n-3}, validates on S_{i+n-2} and tests on S_{i+n-1}
  (indices mod n; for n = 5: Fold1 = S1 S2 S3 / S4 / S5, Fold2 = S2 S3 S4 / S5 / S1, ...).

Every fold ``Fold<k>`` found is used. A query id may not be in two parts of a fold. Parsed files are
cached by (path, size, mtime); all arrays returned are read-only (copy to modify).
"""
from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from ordrank.datasets.ratings import resolve_data_dir

PARTS = ("train", "vali", "test")
LAYOUTS = {"LETOR 4.0": ("train.txt", "vali.txt", "test.txt"),
           "LETOR 3.0": ("trainingset.txt", "validationset.txt", "testset.txt")}
"""File names of a fold's three parts in each ``Fold<k>/`` layout."""
LETOR_VERSIONS = ("3.0", "4.0")
LETOR4_SETS = re.compile(r"MQ200[78]\b", re.IGNORECASE)  # LETOR 4.0's supervised sets: MQ2007, MQ2008
SUBSET = re.compile(r"S(\d+)\.txt")
FOLD = re.compile(r"Fold(\d+)")
DOCID = re.compile(r"docid\s*=\s*(\S+)")
_CACHE: dict[tuple, "QuerySet"] = {}
MAX_INDEX = 2 ** 31 - 1  # scikit-learn's SVMlight parser keeps feature indices in int32
MAX_DENSE_BYTES = 8 * 2 ** 30  # X is returned dense: refuse a file that would need more than 8 GiB
INT64 = (-2 ** 63, 2 ** 63 - 1)


class LetorFormatError(ValueError):
    """A LETOR file or folder that cannot be read as ranking data (the message names file and line)."""


@dataclass(frozen=True)
class QuerySet:
    """One SVMlight ranking file: ``X`` (n, n_features) float, ``y`` int64 grades, ``qid`` int64
    (each query's rows contiguous), ``docid`` (str array, or None when the file has no docids) and
    the ``path`` it came from (the first file, for a concatenation)."""

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray
    docid: np.ndarray | None
    path: Path

    @property
    def n_queries(self) -> int:
        return len(np.unique(self.qid))

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def __len__(self) -> int:
        return len(self.y)


@dataclass(frozen=True)
class Fold:
    """A fold: its ``name`` (``Fold1``...), its three parts, and the ``files`` each part was read from."""

    name: str
    train: QuerySet
    vali: QuerySet
    test: QuerySet
    files: dict


def _fail(path, line: int | None, message: str):
    where = f"{path}, line {line}" if line is not None else str(path)
    raise LetorFormatError(f"{where}: {message}")


def _feature_token(path, number: int, token: str, previous: int) -> int:
    index, colon, value = token.partition(":")
    try:
        index, _ = int(index), float(value)
    except ValueError:
        index = None
    if not colon or index is None:
        null = " (LETOR's NULL version: read its MIN or QueryLevelNorm version)" if value == "NULL" else ""
        _fail(path, number, f"malformed feature {token!r} (expected index:value){null}")
    if index < 1:
        _fail(path, number, f"feature index {index} in {token!r}: indices start at 1")
    if index <= previous:
        _fail(path, number, f"feature index {index} after {previous}: indices must increase along a line")
    return index


def _scan(path: Path, text: str, n_features: int | None, full: bool, dtype=np.float64):
    """Check each line (``full``: every feature token too); return labels, qids and docids as lists."""
    labels, qids, docids, numbers, seen = [], [], [], [], {}
    widest = (0, None)  # the largest feature index and its line
    for number, line in enumerate(text.split("\n"), 1):  # the parser's own line breaks (not splitlines)
        body, hash_, comment = line.partition("#")
        tokens = body.split()
        if not tokens:
            continue
        try:
            grade = float(tokens[0])
        except ValueError:
            grade = None
        if grade is None or not grade.is_integer() or grade < 0:
            _fail(path, number, f"label {tokens[0]!r} is not a non-negative integer (relevance grade)")
        if len(tokens) < 2 or not tokens[1].startswith("qid:") or not tokens[1][4:].lstrip("-").isdigit():
            got = repr(tokens[1]) if len(tokens) > 1 else "nothing"
            _fail(path, number, f"expected qid:<integer> after the label, got {got}")
        q = int(tokens[1][4:])
        if not INT64[0] <= q <= INT64[1]:
            _fail(path, number, f"query id {tokens[1][4:]} is beyond the 64-bit integer range")
        if qids and q != qids[-1]:
            if q in seen:
                _fail(path, number, f"query {q} appears again after query {qids[-1]} (its rows ended at line "
                                    f"{seen[q]}); the rows of a query must be contiguous")
        seen[q] = number
        if full:
            previous = 0
            for token in tokens[2:]:
                previous = _feature_token(path, number, token, previous)
        last = _feature_token(path, number, tokens[-1], 0) if len(tokens) > 2 else 0
        if n_features is not None and last > n_features:
            _fail(path, number, f"feature index {last} is beyond the expected {n_features} features")
        if last > MAX_INDEX:
            _fail(path, number, f"feature index {last} is beyond {MAX_INDEX}, the largest the SVMlight "
                                "parser reads")
        if last > widest[0]:
            widest = (last, number)
        match = DOCID.search(comment) if hash_ else None
        labels.append(int(grade))
        qids.append(q)
        docids.append(match.group(1) if match else None)
        numbers.append(number)
    if not qids:
        _fail(path, None, "no query in the file (empty, or only comments and blank lines)")
    columns = n_features if n_features is not None else widest[0]
    need = len(qids) * columns * np.dtype(dtype).itemsize
    if need > MAX_DENSE_BYTES:
        index, line = widest
        _fail(path, line if n_features is None else None,
              f"X would take {need / 2 ** 30:.1f} GiB dense ({len(qids)} rows x {columns} features"
              f"{f', the largest index {index} being on this line' if n_features is None else ''}), "
              f"beyond the {MAX_DENSE_BYTES / 2 ** 30:.0f} GiB limit (MAX_DENSE_BYTES); is the index a typo?")
    return labels, qids, docids, numbers


def load_letor(path, n_features: int | None = None, dtype=np.float64) -> QuerySet:
    """Read one SVMlight ranking file (see the module docstring) as a :class:`QuerySet`.

    ``n_features``: the expected feature count (an index beyond it is an error; X gets exactly that
    many columns); None: the largest index in the file. Raises FileNotFoundError, or
    :class:`LetorFormatError` (a ValueError) naming the file and the line.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"LETOR file {path} not found")
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, n_features, np.dtype(dtype).str)
    if key in _CACHE:
        return _CACHE[key]
    raw = path.read_bytes().replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    text = raw.decode("utf-8", errors="replace")
    labels, qids, docids, numbers = _scan(path, text, n_features, full=False, dtype=dtype)
    try:
        X, _, qid = load_svmlight_file(io.BytesIO(raw), n_features=n_features, dtype=dtype, query_id=True,
                                       zero_based=False)
    except ValueError as error:  # locate the bad token, else report scikit-learn's message with the file
        _scan(path, text, n_features, full=True, dtype=dtype)
        _fail(path, None, f"scikit-learn could not parse it: {error}")
    if not np.all(np.isfinite(X.data)):
        row = np.searchsorted(X.indptr, np.flatnonzero(~np.isfinite(X.data))[0], side="right") - 1
        _fail(path, numbers[row], "a feature value is NaN or infinite")
    has = [d is not None for d in docids]
    if any(has) and not all(has):
        i = has.index(not has[0])
        what = "no '#docid = ...' comment, while line {} has one" if has[0] else \
            "a '#docid = ...' comment, while line {} has none"
        _fail(path, numbers[i], what.format(numbers[0]) + "; every line or none must name its document")
    X = np.ascontiguousarray(X.toarray())
    y, qid = np.asarray(labels, dtype=np.int64), qid.astype(np.int64)
    if not np.array_equal(qid, qids):  # cannot happen unless the two parsers disagree
        _fail(path, None, "query ids read by scikit-learn differ from the lines' qid: tokens")
    docid = None if docids[0] is None else np.asarray(docids, dtype=str)
    _CACHE[key] = _read_only(QuerySet(X, y, qid, docid, path))
    return _CACHE[key]


def letor_version(folder) -> str:
    """The LETOR release whose evaluation script fits ``folder``: "4.0" if it or a folder above it is
    named MQ2007 or MQ2008 (e.g. ``MQ2008``, ``MQ2008-list``), else "3.0"."""
    return "4.0" if any(LETOR4_SETS.match(part) for part in Path(folder).parts) else "3.0"


def _read_only(data: QuerySet) -> QuerySet:
    for array in (data.X, data.y, data.qid, data.docid):
        if array is not None:
            array.flags.writeable = False
    return data


def concat(sets: list[QuerySet]) -> QuerySet:
    """Query sets one after the other (their query ids must be disjoint; checked by :func:`letor_folds`)."""
    if len(sets) == 1:
        return sets[0]
    docid = None if any(s.docid is None for s in sets) else np.concatenate([s.docid for s in sets])
    parts = [np.concatenate([getattr(s, a) for s in sets]) for a in ("X", "y", "qid")]
    return _read_only(QuerySet(*parts, docid, sets[0].path))


def find_layout(path) -> tuple[str, list[tuple[str, dict[str, list[Path]]]]]:
    """The layout of folder ``path`` (or of its ``QueryLevelNorm/``): its name and, per fold, the files
    of each part. Raises FileNotFoundError for a missing folder or fold file, LetorFormatError for an
    unknown layout (listing what was looked for)."""
    path = Path(path).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"LETOR folder {path} not found")
    for root in (path, path / "QueryLevelNorm"):
        folds = sorted((int(m.group(1)), d) for d in root.glob("Fold*")
                       if d.is_dir() and (m := FOLD.fullmatch(d.name)))
        for layout, names in LAYOUTS.items():
            if folds and any((d / names[2]).is_file() for _, d in folds):
                if [k for k, _ in folds] != list(range(1, len(folds) + 1)):
                    raise LetorFormatError(f"{root}: folds {', '.join(d.name for _, d in folds)}; they must be "
                                           "numbered Fold1 .. Foldn without gaps")
                for _, d in folds:
                    for name in names:
                        if not (d / name).is_file():
                            raise FileNotFoundError(f"{d / name} not found ({layout} layout: every Fold<k>/ "
                                                    f"holds {', '.join(names)})")
                return layout, [(d.name, {p: [d / n] for p, n in zip(PARTS, names)}) for _, d in folds]
        subsets = sorted((int(m.group(1)), f) for f in root.glob("S*.txt") if (m := SUBSET.fullmatch(f.name)))
        if subsets:
            numbers = [k for k, _ in subsets]
            if numbers != list(range(1, len(numbers) + 1)) or len(numbers) < 3:
                raise LetorFormatError(f"{root}: subsets {', '.join(f.name for _, f in subsets)}; the subsets "
                                       "layout needs S1.txt .. Sn.txt, n >= 3, numbered without gaps")
            files, n = [f for _, f in subsets], len(subsets)
            rotation = [[files[(i + j) % n] for j in range(n)] for i in range(n)]
            return f"{n} subsets", [(f"Fold{i + 1}", {"train": r[:n - 2], "vali": [r[n - 2]], "test": [r[n - 1]]})
                                    for i, r in enumerate(rotation)]
    raise LetorFormatError(
        f"{path}: unknown LETOR layout; looked in it and in its QueryLevelNorm/ for Fold<k>/{{train,vali,test}}.txt "
        "(LETOR 4.0), Fold<k>/{trainingset,validationset,testset}.txt (LETOR 3.0) and S1.txt .. Sn.txt (subsets)")


def _fold(name: str, files: dict[str, list[Path]], n_features: int | None, dtype) -> Fold:
    loaded = {p: [load_letor(f, n_features, dtype) for f in fs] for p, fs in files.items()}
    counts = [f"{p} {s.n_features} in {s.path}" for p in PARTS for s in loaded[p]]
    if len({s.n_features for p in PARTS for s in loaded[p]}) > 1:
        raise LetorFormatError(f"{name}: its files have different feature counts ({', '.join(counts)}); "
                               "pass n_features to read them with one count")
    owner: dict[int, str] = {}
    for p in PARTS:
        for s in loaded[p]:
            for q in np.unique(s.qid).tolist():
                if q in owner:
                    raise LetorFormatError(f"{name}: query {q} is in both {owner[q]} and {p} ({s.path}); "
                                           "a fold's parts (and subsets) must hold different queries")
                owner[q] = f"{p} ({s.path})"
    return Fold(name, *(concat(loaded[p]) for p in PARTS), files)


def letor_folds(path, n_features: int | None = None, dtype=np.float64) -> list[Fold]:
    """Every fold of the LETOR folder ``path`` (see the module docstring), loaded."""
    _, folds = find_layout(path)
    return [_fold(name, files, n_features, dtype) for name, files in folds]


@dataclass
class LetorData:
    """A LETOR folder for the experiments (``conf/dataset/letor*.yaml``): layout found at once, folds read
    on demand (``fold(k)`` for k = 1..``n_folds``, as ``protocols.query_folds`` asks; ``folds()``).

    Parameters
    ----------
    path : path
        The folder; a relative path is taken under the data directory.
    data_dir : path, optional
        Data directory (see :func:`~ordrank.datasets.ratings.resolve_data_dir`).
    n_features : int, optional
        Expected feature count (OHSUMED: 45); None: the largest index in each fold's files.
    fetch : str, optional
        Name of the set in ``ordrank.datasets.fetch`` that installs this folder (for the error message).
    evaluation : {"3.0", "4.0"}, optional
        Which of LETOR's evaluation scripts the ``letor_*`` metrics follow on this data
        (:mod:`ordrank.metrics.letor`: they differ in P@k of queries shorter than k). None: "4.0" for
        the LETOR 4.0 sets, a folder named MQ2007 or MQ2008 (``MQ2008``, ``MQ2008-list``, ...) or
        inside one, else "3.0". The query-folds protocol then reports ``letor4_*`` metrics.
    """

    path: str | os.PathLike
    data_dir: str | os.PathLike | None = None
    n_features: int | None = None
    fetch: str | None = None
    evaluation: str | None = None

    def __post_init__(self):
        if self.path in (None, ""):
            raise ValueError("dataset.path must name a LETOR folder, e.g. dataset.path=/data/MQ2008")
        if self.n_features is not None and not (type(self.n_features) is int and self.n_features >= 1):
            raise ValueError(f"dataset.n_features must be null or a positive integer, got {self.n_features!r}")
        folder = Path(self.path).expanduser()
        self.folder = folder if folder.is_absolute() else resolve_data_dir(self.data_dir) / folder
        if not self.folder.is_dir():
            root = resolve_data_dir(self.data_dir)
            how = (f"Get it with: python -m ordrank.data fetch {self.fetch} --data-dir {root}" if self.fetch
                   else "Point dataset.path at a LETOR folder (absolute, or under the data directory)")
            raise FileNotFoundError(f"LETOR folder not found: expected it at {self.folder}. "
                                    f"Set the data directory with the config key `data_dir` or ORDRANK_DATA. {how}.")
        self.layout, self._folds = find_layout(self.folder)
        if self.evaluation is None:
            self.evaluation = letor_version(self.folder)
        elif str(self.evaluation) not in LETOR_VERSIONS:
            raise ValueError(f"dataset.evaluation must be null or one of {LETOR_VERSIONS} (LETOR's "
                             f"Eval-Score-<version>.pl), got {self.evaluation!r}")
        self.evaluation = str(self.evaluation)

    @property
    def n_folds(self) -> int:
        return len(self._folds)

    def fold(self, k: int) -> Fold:
        """Fold ``k``, numbered from 1 as LETOR's ``Fold1`` .. ``Fold<n_folds>``."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= self.n_folds:
            raise IndexError(f"fold number must be an integer in 1..{self.n_folds} (Fold1 .. Fold{self.n_folds}), "
                             f"got {k!r}")
        return _fold(*self._folds[k - 1], self.n_features, np.float64)

    def folds(self):
        """The folds in order, each read when reached."""
        return (self.fold(k) for k in range(1, self.n_folds + 1))
