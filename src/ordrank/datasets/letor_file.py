"""One LETOR file: SVMlight lines with query ids, read and checked line by line.

A line is ``label qid:Q 1:v1 2:v2 ... #docid = D ...``: an integer relevance grade (0 = not relevant),
the query id, 1-based feature indices in increasing order, and an optional comment whose ``docid``
names the document. scikit-learn's ``load_svmlight_file(..., query_id=True)`` parses the numbers; a
light pass over the lines first checks what it does not (or reports without a line number), so that
every error names the file and the 1-based line: a query id appearing again after another query
(rows of a query must be contiguous), a query id beyond int64, a feature index beyond ``n_features``
or beyond what the parser and memory allow (2^31 − 1, and a dense X of at most ``MAX_DENSE_BYTES``),
a label that is not a non-negative integer, a malformed token, a file without any query. Lines end
with LF, CRLF or a lone CR (old Mac files). Parsed files are cached by (path, size, mtime); all
arrays returned are read-only (copy to modify). The folds of a LETOR folder: :mod:`ordrank.datasets.letor`.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

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
