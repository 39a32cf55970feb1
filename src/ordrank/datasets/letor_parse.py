"""The compiled (numba) part of the LETOR reader :mod:`ordrank.datasets.letor_file`: two passes over chunks.

Both passes take a chunk ``buf[:n]`` of the file (``words``: the same bytes as uint64, to find line
breaks eight bytes at a time), handle its whole lines and return how many bytes they consumed; the
caller carries the rest over. ``final``: the last chunk, whose last line may lack a line break. Lines
end at LF, CRLF (one break) or a lone CR; spaces, tabs, vertical tabs and form feeds separate tokens.

:func:`count_chunk` (pass 1) counts lines and rows and, if asked, finds the largest index among the
lines' last tokens (a line's largest when its indices increase, which pass 2 checks), so X is
allocated once. :func:`parse_chunk` (pass 2) checks each row and writes its label, query id and values
straight into the caller's arrays; at the first bad line it stops and reports what is wrong as numbers.

Numbers: :func:`ordrank.datasets.decimal_parse.parse_number` reads them correctly rounded to float64,
whatever their number of digits. The tokens it leaves (subnormal or infinite values, ``nan``, ``1_0``,
garbage) are "slow": their row, column, line and byte span go back to Python's ``float()``, so every
value is strtod's float64.
"""
from __future__ import annotations

import numpy as np
from ordrank.compiled import njit

from ordrank.datasets.decimal_parse import parse_number, quick_number
from ordrank.datasets.digit_runs import digit_run
from ordrank.datasets.letor_docid import find_docid

# what parse_chunk reports (error[0]); letor_file._message words it
OK, LABEL, QID, QID_RANGE, MALFORMED, INDEX_BELOW_1, NOT_INCREASING, BEYOND_EXPECTED, BEYOND_MAX, CHANGED = range(10)

MAX_INDEX = 2 ** 31 - 1
CAP = 10 ** 17  # indices stop growing there (beyond MAX_INDEX anyway)
SPACE = np.isin(np.arange(256), [32, 9, 11, 12])  # space, tab, vertical tab, form feed
END = np.isin(np.arange(256), [32, 9, 11, 12, 10, 13, 35])  # what ends a token: space, line break, comment
ZERO, ONES, HIGH = np.uint64(0), np.uint64(0x0101010101010101), np.uint64(0x8080808080808080)
LF, CR, HASH = np.uint64(0x0A0A0A0A0A0A0A0A), np.uint64(0x0D0D0D0D0D0D0D0D), np.uint64(0x2323232323232323)


@njit(forceinline=True)
def _skip_space(buf, i, end):
    while i < end and SPACE[buf[i]]:
        i += 1
    return i


@njit(forceinline=True)
def _token_end(buf, i, end):
    while i < end and not END[buf[i]]:
        i += 1
    return i


@njit(forceinline=True)
def _has_byte(x, pattern):  # nonzero if a byte of the word x equals pattern's bytes
    y = x ^ pattern
    return (y - ONES) & ~y & HIGH


@njit(forceinline=True)
def _find_break(buf, words, i, end, comment):
    """The first LF or CR (or ``#`` if ``comment``) at or after i, or ``end``; skips words holding none."""
    while i < end:
        if i & 7 == 0 and i + 8 <= end:
            x = words[i >> 3]
            if not (_has_byte(x, LF) | _has_byte(x, CR) | (_has_byte(x, HASH) if comment else ZERO)):
                i += 8
                continue
        c = buf[i]
        if c == 10 or c == 13 or (comment and c == 35):
            return i
        i += 1
    return end


@njit(forceinline=True)
def _next_line(buf, e, stop):
    """Where the line whose break is at e (or that ends at stop) is followed by the next one."""
    if e >= stop:
        return stop
    return e + 2 if buf[e] == 13 and e + 1 < stop and buf[e + 1] == 10 else e + 1


@njit
def _complete(buf, n, final):
    """The end of buf[:n]'s whole lines: after the last line break (a CR at n - 1 may be half a CRLF)."""
    if final:
        return n
    p = n - 2 if n > 0 and buf[n - 1] == 13 else n - 1
    while p >= 0 and buf[p] != 10 and buf[p] != 13:
        p -= 1
    return p + 1


@njit(forceinline=True)
def quick_index(buf, a, limit):
    """:func:`parse_index` without a loop (its reference counts: :mod:`~ordrank.datasets.digit_runs`);
    (0, -2) for an index of 8 digits or more (read it with :func:`parse_index`)."""
    negative = a < limit and buf[a] == 45
    start = a + 1 if a < limit and (buf[a] == 43 or buf[a] == 45) else a
    n, run = digit_run(buf, start, limit)
    if n == 8:
        return 0, -2
    i = start + n
    if n == 0 or i == limit or buf[i] != 58:
        return 0, -1
    return (-np.int64(run) if negative else np.int64(run)), i


@njit
def parse_index(buf, a, limit):
    """(index, position of the colon) of a token ``[+-]digits:...`` at a, or (0, -1) if it is not one."""
    negative = a < limit and buf[a] == 45
    i = start = a + 1 if a < limit and (buf[a] == 43 or buf[a] == 45) else a
    index = 0
    while i < limit and 48 <= buf[i] <= 57:
        index = index * 10 + (buf[i] - 48) if index < CAP else index
        i += 1
    if i == start or i == limit or buf[i] != 58:
        return 0, -1
    return (-index if negative else index), i


@njit
def _parse_qid(buf, a, b):
    """(query id, OK) for ``qid:[-]digits`` at buf[a:b]; (0, QID) if it is not one, (0, QID_RANGE) beyond int64."""
    if b - a < 5 or buf[a] != 113 or buf[a + 1] != 105 or buf[a + 2] != 100 or buf[a + 3] != 58:
        return 0, QID
    negative = buf[a + 4] == 45
    i = a + 5 if negative else a + 4
    while i < b - 1 and buf[i] == 48:  # leading zeros
        i += 1
    value, last = 0, 0
    for k in range(i, b):
        if not 48 <= buf[k] <= 57:
            return 0, QID
        if k < i + 18:
            value = value * 10 + (buf[k] - 48)
        else:
            last = buf[k] - 48
    if i == b:
        return 0, QID
    if b - i == 19:  # value * 10 + last within 2^63 - 1 (2^63 if negative)
        if value > 922337203685477580 or (value == 922337203685477580 and last > 7 + negative):
            return 0, QID_RANGE
        return (-value * 10 - last if negative else value * 10 + last), OK
    return (0, QID_RANGE) if b - i > 19 else ((-value if negative else value), OK)


@njit
def count_chunk(buf, words, n, final, state, widest):
    """Pass 1. ``state`` = [lines, rows, largest last index, its line], updated (the index if ``widest``)."""
    stop, pos = _complete(buf, n, final), 0
    while pos < stop:
        state[0] += 1
        i = _skip_space(buf, pos, stop)
        e = _find_break(buf, words, i, stop, widest)
        if i < e and buf[i] != 35:
            state[1] += 1
            if widest:  # the last token before the comment
                j = e
                while j > i and SPACE[buf[j - 1]]:
                    j -= 1
                k = j
                while k > i and not SPACE[buf[k - 1]]:
                    k -= 1
                index, colon = parse_index(buf, k, j)
                if k > i and colon >= 0 and index > state[2]:
                    state[2], state[3] = index, state[0]
        if e < stop and buf[e] == 35:
            e = _find_break(buf, words, e, stop, False)
        pos = _next_line(buf, e, stop)
    return pos


@njit
def _push(slow, count, row, column, line, start, value_start, end):
    if count == slow.shape[0]:
        slow = np.concatenate((slow, np.empty_like(slow)))
    slow[count, 0], slow[count, 1], slow[count, 2] = row, column, line
    slow[count, 3], slow[count, 4], slow[count, 5] = start, value_start, end
    return slow


@njit
def parse_chunk(buf, words, n, final, state, X, y, qid, line_of_row, doc_start, doc_end, n_features, store, largest):
    """Pass 2. ``state`` = [lines, rows] so far. Writes row r's label, query id, line, docid span (-1: none)
    at r, its values in X[r] if ``store``; ``n_features`` < 0: any; a value as large as ``largest`` (X's
    type would make it infinite) is left slow, for the caller's error. Returns (bytes consumed, error = [code,
    line, token start, token end, index, previous index], slow = rows [row, column (-1: label), line,
    token start, value start, token end])."""
    error, slow, count = np.zeros(6, np.int64), np.empty((256, 6), np.int64), 0
    stop, pos, columns = _complete(buf, n, final), 0, X.shape[1]
    while pos < stop:
        line = state[0] + 1
        state[0] = line
        error[1] = line
        i = _skip_space(buf, pos, stop)
        if i == stop or buf[i] == 10 or buf[i] == 13 or buf[i] == 35:  # blank or comment line
            pos = _next_line(buf, _find_break(buf, words, i, stop, False), stop)
            continue
        row = state[1]
        if row >= y.shape[0]:
            error[0] = CHANGED
            return pos, error, slow[:count]
        value, fast, t, long = quick_number(buf, i, stop)
        if long:
            value, fast, t = parse_number(buf, i, stop)
        if t < stop and not END[buf[t]]:
            fast, t = False, _token_end(buf, t, stop)
        if not fast:
            slow = _push(slow, count, row, -1, line, i, i, t)
            count += 1
        elif value >= 0 and value == np.floor(value) and value < 9.2e18:
            y[row] = np.int64(value)
        else:
            error[0], error[2], error[3] = LABEL, i, t
            return pos, error, slow[:count]
        i = _skip_space(buf, t, stop)
        t = _token_end(buf, i, stop)
        q, code = _parse_qid(buf, i, t)
        if code != OK:
            error[0], error[2], error[3] = code, (i + 4 if code == QID_RANGE else i), t
            if t == i:
                error[2], error[3] = -1, -1
            return pos, error, slow[:count]
        qid[row] = q
        previous, wider = 0, False
        while True:
            i = t  # the spaces before the token: a loop here, not in a function taking buf (digit_runs.py)
            while i < stop and SPACE[buf[i]]:
                i += 1
            if i == stop or buf[i] == 10 or buf[i] == 13 or buf[i] == 35:
                break
            index, colon = quick_index(buf, i, stop)  # the quick readers, then the general ones if need be
            if colon == -2:
                index, colon = parse_index(buf, i, stop)
            if colon < 0:
                value, fast, t = 0.0, False, _token_end(buf, i, stop)
            else:
                value, fast, t, long = quick_number(buf, colon + 1, stop)
                if long:
                    value, fast, t = parse_number(buf, colon + 1, stop)
                if t < stop and not END[buf[t]]:
                    fast, t = False, _token_end(buf, t, stop)
                fast = fast and abs(value) < largest
            code = (MALFORMED if colon < 0 else INDEX_BELOW_1 if index < 1 else NOT_INCREASING if index <= previous
                    else BEYOND_EXPECTED if 0 <= n_features < index else BEYOND_MAX if index > MAX_INDEX else OK)
            if code != OK:
                error[0], error[2], error[3], error[4], error[5] = code, i, t, index, previous
                return pos, error, slow[:count]
            wider = wider or index > columns  # then pass 1 saw a smaller last index: a bad token follows
            if not fast:
                slow = _push(slow, count, row, index - 1, line, i, colon + 1, t)
                count += 1
            elif store and index <= columns:
                X[row, index - 1] = value
                if X[row, index - 1] == 0:  # -0 (or a float32 rounded to -0) gives +0.0, as scipy's toarray()
                    X[row, index - 1] = 0.0
            previous = index
        if store and wider:
            error[0] = CHANGED
            return pos, error, slow[:count]
        e = _find_break(buf, words, i, stop, False)
        doc_start[row], doc_end[row] = find_docid(buf, i + 1, e) if i < e and buf[i] == 35 else (-1, -1)
        line_of_row[row] = line
        state[1] = row + 1
        pos = _next_line(buf, e, stop)
    return pos, error, slow[:count]
