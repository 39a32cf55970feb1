"""The words of the LETOR reader's errors (:mod:`ordrank.datasets.letor_file`): what a code of the compiled
parser (:mod:`ordrank.datasets.letor_parse`) means, with the token it stopped at; long tokens and integers
are cut to a readable length (their length said)."""
from __future__ import annotations

from ordrank.datasets import letor_parse as parse

NULL_HINT = " (LETOR's NULL version: read its MIN or QueryLevelNorm version)"


def read_float(text: bytes) -> float | None:
    """``float(text)`` (Python's, strtod's value), or None if it is no number."""
    try:
        return float(text)
    except ValueError:
        return None


def text(buf, start: int, end: int) -> str:
    return buf[start:end].tobytes().decode("utf-8", errors="replace")


def show(token: str) -> str:
    """``repr(token)``, cut to its first 40 characters and its length when longer than 60."""
    return repr(token) if len(token) <= 60 else f"{token[:40]!r}... ({len(token)} characters)"


def integer(written: str) -> str:
    """The integer ``written`` (digits, a sign) as Python writes it; with more than 50 digits, its first 20
    and how many there are (``int()`` refuses over 4300)."""
    sign, digits = ("-", written[1:]) if written[:1] == "-" else ("", written.lstrip("+"))
    digits = digits.lstrip("0") or "0"
    return sign + digits if len(digits) <= 50 else f"{sign}{digits[:20]}... ({len(digits)} digits)"


def describe(buf, error, n_features) -> str:
    """What parse_chunk's ``error`` = [code, line, token start, token end, index, previous] means."""
    code, _, start, end, _, previous = error.tolist()
    token = text(buf, start, end) if start >= 0 else None
    if code == parse.LABEL:
        return f"label {show(token)} is not a non-negative integer (relevance grade)"
    if code == parse.QID:
        return f"expected qid:<integer> after the label, got {'nothing' if token is None else show(token)}"
    if code == parse.QID_RANGE:
        return f"query id {integer(token)} is beyond the 64-bit integer range"
    if code == parse.CHANGED:
        return "the file changed while it was read (more rows or wider lines than in the first pass)"
    index, _, value = token.partition(":")
    bad_value = read_float(buf[start:end].tobytes().partition(b":")[2]) is None
    if code == parse.MALFORMED or bad_value:  # a bad value comes first, as in the old reader
        return f"malformed feature {show(token)} (expected index:value){NULL_HINT if value == 'NULL' else ''}"
    index = integer(index)
    if code == parse.INDEX_BELOW_1:
        return f"feature index {index} in {show(token)}: indices start at 1"
    if code == parse.NOT_INCREASING:
        return f"feature index {index} after {previous}: indices must increase along a line"
    if code == parse.BEYOND_EXPECTED:
        return f"feature index {index} is beyond the expected {n_features} features"
    return f"feature index {index} is beyond {parse.MAX_INDEX}, the largest the SVMlight parser reads"
