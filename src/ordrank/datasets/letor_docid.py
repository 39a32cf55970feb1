"""A LETOR comment's docid in compiled code (numba): the span :data:`ordrank.datasets.letor_file.DOCID`
(``docid\\s*=\\s*(\\S+)``) matches in the comment's UTF-8 bytes, with ``re``'s ``\\s`` (Unicode's spaces)."""
from __future__ import annotations

import re

import numpy as np
from ordrank.compiled import njit


def _regex_spaces():
    """What ``re``'s ``\\s`` matches: the ASCII ones as a table, the others as their UTF-8 bytes (2 or 3)."""
    spaces = [c.encode() for c in re.findall(r"\s", "".join(map(chr, range(0x110000))))]
    wide = [b for b in spaces if len(b) > 1]
    assert all(len(b) <= 3 for b in wide)
    codes = np.array([list(b.ljust(3, b"\0")) for b in wide], np.uint8)
    return np.isin(np.arange(128), [b[0] for b in spaces if len(b) == 1]), codes, np.array([len(b) for b in wide])


WIDE_SPACE, WIDE_CODES, WIDE_LENGTH = _regex_spaces()


@njit(forceinline=True)
def _unicode_space(buf, i, end):
    """The byte length of the character at buf[i] if the regular expression ``\\s`` matches it (UTF-8),
    else 0."""
    c = buf[i]
    if c < 128:
        return 1 if WIDE_SPACE[c] else 0
    for k in range(WIDE_CODES.shape[0]):
        n = WIDE_LENGTH[k]
        if i + n <= end and buf[i] == WIDE_CODES[k, 0] and buf[i + 1] == WIDE_CODES[k, 1] and \
                (n == 2 or buf[i + 2] == WIDE_CODES[k, 2]):
            return n
    return 0


@njit(forceinline=True)
def _skip_unicode_space(buf, i, end):
    while i < end:
        n = _unicode_space(buf, i, end)
        if n == 0:
            return i
        i += n
    return i


@njit
def find_docid(buf, a, end):
    """The span of X in the first match of the regular expression ``docid\\s*=\\s*(\\S+)`` in buf[a:end]
    (read as UTF-8, as Python's ``re`` reads the decoded comment: ``\\s`` takes Unicode's spaces)."""
    for p in range(a, end - 4):
        if buf[p] == 100 and buf[p + 1] == 111 and buf[p + 2] == 99 and buf[p + 3] == 105 and buf[p + 4] == 100:
            j = _skip_unicode_space(buf, p + 5, end)
            if j < end and buf[j] == 61:
                j = _skip_unicode_space(buf, j + 1, end)
                k = j
                while k < end and _unicode_space(buf, k, end) == 0:
                    k += 1
                if k > j:
                    return j, k
    return -1, -1
