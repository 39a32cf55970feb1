"""Runs of ASCII digits in compiled code (numba), read eight bytes at a time without a branch per digit.

:func:`digit_run` reads the run of (at most 8) digits at ``buf[i]``, stopping at ``limit``: one
little-endian 64-bit load x of ``buf[i:i + 8]`` (one unaligned load: the byte indices are unsigned, so
numba emits no wraparound test and LLVM merges the eight byte loads), then, as in simdjson and
fast_float ("parse eight digits", Lemire):

- the bytes that are not digits: byte b has its top bit set in ``x - 0x3030...30`` if b < '0' and in
  ``x + 0x4646...46`` if b > '9' (a borrow or carry only moves up, so the lowest such byte is exact);
  the run's length n is the index of the lowest one, found by a multiply (a de Bruijn-like lookup in
  the product's top byte), and cut at ``limit``;
- its value: the n digits shifted to the top bytes, '0's below (leading zeros), then
  ``x - '0'`` per byte, ``10 * x + (x >> 8)`` (pairs of digits in every other byte) and one sum of two
  products (``100 + 10^6 * 2^32`` and ``1 + 10^4 * 2^32``) whose top half is the 8-digit number.

A run of 8 may go on: :func:`digit_tail` reads the rest one byte at a time (values of more than 19
digits wrap modulo 2^64; their readers read such mantissas again).

Why no loop over the words: numba counts references to an array passed to a function, and its pass
that removes the pairs of counts fails around any loop in the called code, so a looping helper taking
the buffer costs two atomic operations per call, more than its digits on LETOR's values.
:func:`digit_run` has no loop; the rare long runs call :func:`digit_tail`.

The small helpers of the reader (here, :mod:`~ordrank.datasets.decimal_parse`,
:mod:`~ordrank.datasets.letor_parse`) are ``forceinline``: LLVM inlines them into their callers. Numba's
own inlining (``inline="always"``, on its IR) gives the same speed but compiles the reader's loop many
times more slowly, once for each dtype.
"""
from __future__ import annotations

import numpy as np
from ordrank.compiled import njit

ZERO, TEN = np.uint64(0), np.uint64(10)
B1, B2, B3, B4, B5, B6, B7 = (np.uint64(k) for k in range(1, 8))
B8, B16, B24, B32, B40, B48, B56 = (np.uint64(8 * k) for k in range(1, 8))
ZEROS, ABOVE, HIGH = np.uint64(0x3030303030303030), np.uint64(0x4646464646464646), np.uint64(0x8080808080808080)
PAIRS = np.uint64(0x000000FF000000FF)  # bytes 0 and 4: a pair of pairs each, after the first step
MUL1, MUL2 = np.uint64(100 + (10 ** 6 << 32)), np.uint64(1 + (10 ** 4 << 32))
BYTE_INDEX = np.uint64(0x0001020304050607)  # 2^(8k) times it has k in its top byte (k = 0..7)
POWERS = np.array([10 ** k for k in range(9)], np.uint64)


@njit(forceinline=True)
def load8(buf, i):
    """``buf[i:i + 8]`` as one little-endian uint64 (bytes past the array's end read as 0)."""
    size = buf.shape[0]
    if i + 8 <= size:
        u = np.uint64(i)
        return (np.uint64(buf[u]) | np.uint64(buf[u + B1]) << B8 | np.uint64(buf[u + B2]) << B16
                | np.uint64(buf[u + B3]) << B24 | np.uint64(buf[u + B4]) << B32 | np.uint64(buf[u + B5]) << B40
                | np.uint64(buf[u + B6]) << B48 | np.uint64(buf[u + B7]) << B56)
    # the array's last bytes, one by one: no loop (see the module docstring)
    return ((np.uint64(buf[i]) if i < size else ZERO) | (np.uint64(buf[i + 1]) << B8 if i + 1 < size else ZERO)
            | (np.uint64(buf[i + 2]) << B16 if i + 2 < size else ZERO)
            | (np.uint64(buf[i + 3]) << B24 if i + 3 < size else ZERO)
            | (np.uint64(buf[i + 4]) << B32 if i + 4 < size else ZERO)
            | (np.uint64(buf[i + 5]) << B40 if i + 5 < size else ZERO)
            | (np.uint64(buf[i + 6]) << B48 if i + 6 < size else ZERO))


@njit(forceinline=True)
def eight_digits(x):
    """The number the 8 ASCII digits of x spell, the first in the lowest byte (three multiplies)."""
    x -= ZEROS
    x = x * TEN + (x >> B8)
    return ((x & PAIRS) * MUL1 + ((x >> B16) & PAIRS) * MUL2) >> B32


@njit(forceinline=True)
def digit_run(buf, i, limit):
    """(n, value): the n <= 8 digits at ``buf[i:limit]`` (n = 8: the run may go on) and the number
    they spell."""
    x = load8(buf, i)
    other = ((x + ABOVE) | (x - ZEROS)) & HIGH  # top bit of every byte that is no digit (the lowest exact)
    lowest = other & (~other + np.uint64(1))
    n = 8 if other == ZERO else np.int64(((lowest >> B7) * BYTE_INDEX) >> B56)
    n = min(n, max(limit - i, 0))
    if n == 0:
        return 0, ZERO
    shift = np.uint64(64 - 8 * n)
    top = x << shift if n < 8 else x  # the digits in the top n bytes
    return n, eight_digits(top | (ZEROS >> np.uint64(8 * n)) if n < 8 else top)


@njit
def digit_tail(buf, i, limit, w):
    """(w extended by the digits at buf[i:limit] (modulo 2^64), where they end), one byte at a time."""
    while i < limit and 48 <= buf[i] <= 57:
        w = w * TEN + np.uint64(buf[i] - 48)
        i += 1
    return w, i
