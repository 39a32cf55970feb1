"""One LETOR file: SVMlight lines with query ids, read by a compiled parser into a dense matrix.

Format. A line is ``label qid:Q 1:v1 2:v2 ... #docid = D ...``: an integer relevance grade (0 = not
relevant), the query id, 1-based feature indices in increasing order (absent features are 0), and an
optional comment (``#`` to the end of the line) whose ``docid = D`` names the document. Blank lines
and comment lines are skipped. Lines end with LF, CRLF or a lone CR (old Mac files); CRLF is one line
break. Every line names its document or none does; the rows of a query are contiguous.

Reading (:func:`load_letor`). The file is streamed in chunks of ``CHUNK_BYTES`` into one reused
buffer (never read whole nor mapped: file-backed pages would count in the process's memory); the
compiled passes of :mod:`ordrank.datasets.letor_parse` take whole lines and leave a line cut by the
chunk's end for the next chunk. Pass 1 counts the rows and, when ``n_features`` is None, finds the
largest feature index (of the lines' last tokens); X is then allocated once, dense and C-contiguous,
if the machine has the memory (:func:`available_memory`; else an error names the line of that index).
Pass 2 writes labels, query ids and values straight into X, y and qid.
Values come out exactly as strtod (and scikit-learn's parser) reads them: the compiled parser rounds
every decimal correctly (:mod:`~ordrank.datasets.decimal_parse`), whatever its number of digits, and
leaves to Python's ``float()`` only subnormal, infinite and non-decimal tokens (``nan``, ``1_0``: read
as scikit-learn reads them, or refused); float32 is the float64 value rounded, as scikit-learn's
parser stores it, and a value that is -0 in X's type is stored +0.0 (scikit-learn's dense X). Docids
are copied from the byte spans the parser found (:data:`DOCID`, its spaces Unicode's, as on the
decoded comment). Peak memory: X, the 8-byte-per-row arrays and one chunk.

Errors (:class:`LetorFormatError`) name the file and the 1-based line: the parser stops at the first
bad line and reports a code that :func:`_message` words; query contiguity and docids are checked on
the parsed arrays. Nothing is cached: each call reads the file. All arrays returned are read-only
(copy to modify). The folds of a LETOR folder: :mod:`ordrank.datasets.letor`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psutil

from ordrank.datasets import letor_parse as parse
from ordrank.datasets.letor_messages import NULL_HINT, describe, read_float, show, text

DOCID = re.compile(r"docid\s*=\s*(\S+)")  # the parser's rule for a comment's docid (letor_docid.find_docid)

INT64 = (-2 ** 63, 2 ** 63 - 1)

CHUNK_BYTES = 32 * 2 ** 20  # the file is read this many bytes at a time (a longer line grows the buffer)

FLOAT32_INF = 2.0 ** 128 - 2.0 ** 103  # float64 values this large or larger round to an infinite float32

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


def available_memory() -> int:
    """Bytes of memory the machine can give without swapping (psutil's ``available``)."""
    return psutil.virtual_memory().available


def _stream(path: Path, step) -> None:
    """Feed the file to ``step(buf, words, n, final)`` chunk by chunk (``words``: ``buf`` as uint64);
    ``step`` returns how many bytes of ``buf[:n]`` it consumed (whole lines), the rest is kept at the
    buffer's start for the next chunk."""
    buf = np.empty(-(-CHUNK_BYTES // 8) * 8, np.uint8)
    have = 0
    with open(path, "rb", buffering=0) as file:
        while True:
            if have == buf.size:  # one line longer than the buffer
                buf = np.concatenate([buf, np.empty(buf.size, np.uint8)])
            got = file.readinto(memoryview(buf)[have:])
            n = have + got
            consumed = step(buf, buf.view(np.uint64), n, got == 0)
            if got == 0:
                return
            have = n - consumed
            buf[:have] = buf[consumed:n]


def _count(path: Path, widest: bool) -> tuple[int, int, int]:
    """Pass 1: (rows, largest index among the lines' last tokens, its line); the index only if ``widest``."""
    state = np.zeros(4, np.int64)
    _stream(path, lambda buf, words, n, final: parse.count_chunk(buf, words, n, final, state, widest))
    return int(state[1]), int(state[2]), int(state[3])


def _slow_values(path, buf, slow, X, y, store: bool) -> None:
    """Read the tokens the compiled parser left (rows [row, column, line, start, value start, end], in
    the file's order) with Python's ``float()``, as scikit-learn's parser does; the first bad one fails."""
    if not len(slow):
        return
    row, column, line, start, value_start, end = slow.T
    memory = memoryview(buf)
    texts = [memory[a:b].tobytes() for a, b in zip(value_start.tolist(), end.tolist())]
    read = [read_float(text) for text in texts]
    parsed = np.array([v is not None for v in read])
    value = np.array([math.nan if v is None else v for v in read])
    label = column < 0
    with np.errstate(invalid="ignore"):
        good_label = parsed & (value >= 0) & (value < 2.0 ** 63) & (value == np.floor(value))
    largest = FLOAT32_INF if X.dtype == np.float32 else math.inf
    bad = np.where(label, ~good_label, ~parsed | ~(np.abs(value) < largest))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        token = text(buf, int(start[k]), int(end[k]))
        if label[k]:
            _fail(path, int(line[k]), f"label {show(token)} is not a non-negative integer (relevance grade)")
        if not parsed[k]:
            null = NULL_HINT if texts[k] == b"NULL" else ""
            _fail(path, int(line[k]), f"malformed feature {show(token)} (expected index:value){null}")
        _fail(path, int(line[k]), "a feature value is NaN or infinite")
    y[row[label]] = value[label].astype(np.int64)
    keep = ~label & (column < X.shape[1])  # a column beyond: the line has a bad token further on (parse_chunk)
    if store and keep.any():
        X[row[keep], column[keep]] = value[keep]
        X[row[keep], column[keep]] += 0.0  # -0 (in X's type) gives +0.0, as in parse_chunk


def _parse(path: Path, X, rows: int, n_features: int | None, dtype):
    """Pass 2: (y, qid, line of each row, docid array or None). X None: check the lines without storing."""
    store = X is not None
    X = X if store else np.zeros((1, 1), dtype)
    y, qid, line_of_row, doc_start, doc_end = (np.empty(rows, np.int64) for _ in range(5))
    state, docids = np.zeros(2, np.int64), []
    limit = -1 if n_features is None else int(n_features)
    largest = FLOAT32_INF if X.dtype == np.float32 else math.inf

    def step(buf, words, n, final):
        first = int(state[1])
        consumed, error, slow = parse.parse_chunk(buf, words, n, final, state, X, y, qid, line_of_row, doc_start,
                                                  doc_end, limit, store, largest)
        _slow_values(path, buf, slow, X, y, store)  # all on lines up to the error's
        if error[0] != parse.OK:
            _fail(path, int(error[1]), describe(buf, error, n_features))
        start, end = doc_start[first:state[1]], doc_end[first:state[1]]
        if store and (start >= 0).any():  # the docids' bytes, as fixed-width byte strings
            width = np.arange((end - start).max())
            at = np.minimum(start[:, None] + width, n - 1)
            inside = (width < end[:, None] - start[:, None]) & (start[:, None] >= 0)
            text = np.where(inside, buf[at], 0)
            nul = ((text == 0) & inside).any(axis=1)
            if nul.any():  # a fixed-width byte string would drop a trailing one: refused, not misread
                _fail(path, int(line_of_row[first + int(np.argmax(nul))]), "the docid holds a NUL byte (\\x00); "
                      "a docid is text")
            docids.append(text.astype(np.uint8).view(f"S{len(width)}").ravel())
        return consumed

    _stream(path, step)
    if state[1] != rows:
        _fail(path, None, "the file changed while it was read (fewer rows than in the first pass)")
    has = doc_start >= 0
    if has.any() and not has.all():
        i = int(np.flatnonzero(has != has[0])[0])
        what = "no '#docid = ...' comment, while line {} has one" if has[0] else \
            "a '#docid = ...' comment, while line {} has none"
        _fail(path, int(line_of_row[i]), what.format(line_of_row[0]) + "; every line or none must name its document")
    docid = None
    if store and has[0]:
        docid = np.concatenate(docids)
        ascii_only = docid.view(np.uint8).max() < 128
        docid = docid.astype(str) if ascii_only else np.char.decode(docid, "utf-8", errors="replace")
    return y, qid, line_of_row, docid


def _check_queries(path, qid, line_of_row) -> None:
    """Each query's rows contiguous: name the first row where a query comes back after another one."""
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])  # first row of each run of one query
    runs = qid[starts]
    order = np.argsort(runs, kind="stable")
    again = np.r_[False, runs[order][1:] == runs[order][:-1]]  # runs repeating an earlier run's query
    if again.any():
        run = int(order[again].min())
        first = int(np.flatnonzero(runs == runs[run])[0])
        ended = line_of_row[starts[first + 1] - 1]
        _fail(path, int(line_of_row[starts[run]]), f"query {runs[run]} appears again after query {runs[run - 1]} "
              f"(its rows ended at line {ended}); the rows of a query must be contiguous")


def check_arguments(n_features, dtype) -> tuple[int | None, np.dtype]:
    """``n_features`` (None or an integer >= 1) and ``dtype`` (float32 or float64) as the readers take
    them; a ValueError naming the argument and its value otherwise."""
    if n_features is not None and (isinstance(n_features, (bool, np.bool_))
                                   or not isinstance(n_features, (int, np.integer)) or n_features < 1):
        raise ValueError(f"n_features must be None or a positive integer (the feature count), got {n_features!r}")
    try:
        checked = np.dtype(dtype)
    except TypeError:
        checked = None
    if checked not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype!r}")
    return (None if n_features is None else int(n_features)), checked


def load_letor(path, n_features: int | None = None, dtype=np.float64) -> QuerySet:
    """Read one SVMlight ranking file (see the module docstring) as a :class:`QuerySet`.

    ``n_features``: the expected feature count (an index beyond it is an error; X gets exactly that
    many columns); None: the largest index in the file. ``dtype``: X's, float64 or float32. Raises
    FileNotFoundError, or :class:`LetorFormatError` (a ValueError) naming the file and the line.
    """
    n_features, dtype = check_arguments(n_features, dtype)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"LETOR file {path} not found")
    rows, widest, widest_line = _count(path, n_features is None)
    if rows == 0:
        _fail(path, None, "no query in the file (empty, or only comments and blank lines)")
    columns = max(widest, 1) if n_features is None else n_features  # no feature at all: one column, as before
    need, free = rows * columns * dtype.itemsize, available_memory()
    if widest > parse.MAX_INDEX or need > free:
        _, qid, line_of_row, _ = _parse(path, None, rows, n_features, dtype)  # a bad line comes first
        _check_queries(path, qid, line_of_row)
        if widest > parse.MAX_INDEX:
            _fail(path, widest_line, f"feature index {widest} is beyond {parse.MAX_INDEX}, the largest the SVMlight "
                                     "parser reads")
        inferred = n_features is None
        _fail(path, widest_line if inferred else None,
              f"X would take {need / 2 ** 30:.1f} GiB dense ({rows} rows x {columns} features"
              f"{f', the largest index {widest} being on this line' if inferred else ''}), more than "
              f"the {free / 2 ** 30:.1f} GiB of memory available{'; is the index a typo?' if inferred else ''}")
    X = np.zeros((rows, columns), dtype)
    y, qid, line_of_row, docid = _parse(path, X, rows, n_features, dtype)
    _check_queries(path, qid, line_of_row)
    return read_only(QuerySet(X, y, qid, docid, path))


def read_only(data: QuerySet) -> QuerySet:
    """``data`` with its arrays made read-only (in place)."""
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
    return read_only(QuerySet(*parts, docid, sets[0].path))
