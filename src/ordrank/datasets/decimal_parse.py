"""Decimal numbers to float64 in compiled code (numba), correctly rounded, as strtod reads them.

:func:`parse_number` reads ``[+-]digits[.digits][(e|E)[+-]digits]`` (at least one digit before or after
the point) into w * 10^q: the first 19 significant digits as an unsigned 64-bit integer w (leading zeros
skipped), q the decimal exponent that goes with them, and whether any digit after the 19th is not zero
(``truncated``). Then, for w != 0:

1. Clinger's fast path: w <= 2^53 (exact in float64), not truncated, |q| <= 22 (10^q exact, since
   5^22 < 2^53): w * 10^q or w / 10^-q is one correctly rounded operation on exact operands.
2. Eisel and Lemire's algorithm (:func:`eisel_lemire`), for -342 <= q <= 308: w normalized to 64
   bits times a 128-bit truncation of 10^q (the table :data:`POW10_HI`, :data:`POW10_LO`, made here
   from Python's exact integers); the top 54 bits of the product give the rounded 53-bit mantissa
   unless the bits below them are too close to a halfway point to tell (then it gives up). A
   truncated w takes the answer only if w and w + 1 round to the same float64 (the true value lies
   between them).
3. Otherwise (given up, subnormal or infinite result, q beyond the table, an exponent of more than
   nine digits) the number is "slow": ``fast`` False and the caller reads the token with Python's
   ``float()``. For decimal spellings of float64 values of normal magnitude ("%.17g", ``repr``,
   "%.18e", any shorter rounding) this does not happen: the giving-up cases need a decimal within
   about 2^-64 relative of a halfway point between two float64s (Lemire, "Number parsing at a gigabyte
   per second", 2021, reports no fallback in billions of random numbers).

Tokens that are no such number (``nan``, ``inf``, ``1_0``, garbage) come back with ``fast`` False too.
"""
from __future__ import annotations


import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros
from ordrank.compiled import njit

from ordrank.datasets.digit_runs import POWERS, digit_run, digit_tail

MIN_Q, MAX_Q = -342, 308  # 10^q for q below: w * 10^q < 2^64 * 1e-343 rounds to 0; above: infinite
POW10 = np.array([float(10 ** k) for k in range(23)])  # exact: 10^22 = 2^22 * 5^22 and 5^22 < 2^53


def _table() -> tuple[np.ndarray, np.ndarray]:
    """The 128-bit normalized mantissas of 5^q (the same as 10^q's), q = MIN_Q .. MAX_Q, as Eisel-Lemire
    without fallback takes them: 5^q's top 128 bits for q >= 0 (exact up to q = 55); for q < 0, 1 / 5^-q
    rounded up: floor(2^b / 5^-q) + 1 with b = 127 + the bit length of 5^-q for q >= -27, else
    with b = 128 + twice it, cut to 128 bits (Mushtak and Lemire, "Fast number parsing without fallback",
    2023, prove these 128 bits always decide the rounding)."""
    hi, lo = [], []
    for q in range(MIN_Q, MAX_Q + 1):
        if q >= 0:
            power = 5 ** q
            shift = power.bit_length() - 128
            top = power >> shift if shift > 0 else power << -shift
        else:
            power = 5 ** -q
            bits = (power - 1).bit_length()  # the smallest z with 2^z >= 5^-q
            top = (1 << (bits + 127 if q >= -27 else 2 * bits + 128)) // power + 1
            top >>= max(0, top.bit_length() - 128)
        hi.append(top >> 64)
        lo.append(top & (2 ** 64 - 1))
    return np.array(hi, np.uint64), np.array(lo, np.uint64)


POW10_HI, POW10_LO = _table()
POW2 = np.ldexp(1.0, np.arange(0x7FF) - 1075)  # 2^(e - 1075) for a biased exponent e: from 2^-1074, exact
U32 = np.uint64(0xFFFFFFFF)
ZERO, ONE, TEN, LOW9 = np.uint64(0), np.uint64(1), np.uint64(10), np.uint64(0x1FF)
MAX_DIGITS = 19  # 10^19 - 1 < 2^64
MAX_WRITTEN = 10 ** 9  # an exponent written with more digits is left to float()


@njit(forceinline=True)
def _mul128(a, b):
    """(high, low) 64-bit words of the 128-bit product of uint64 a and b."""
    a_lo, a_hi, b_lo, b_hi = a & U32, a >> np.uint64(32), b & U32, b >> np.uint64(32)
    p0, p1, p2, p3 = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    middle = (p0 >> np.uint64(32)) + (p1 & U32) + (p2 & U32)
    return p3 + (p1 >> np.uint64(32)) + (p2 >> np.uint64(32)) + (middle >> np.uint64(32)), \
        (middle << np.uint64(32)) | (p0 & U32)


@njit(forceinline=True)
def eisel_lemire(w, q):
    """(float64 nearest w * 10^q, True) for uint64 w > 0 and MIN_Q <= q <= MAX_Q; (0.0, False) when
    the result is subnormal or infinite."""
    zeros = np.int64(leading_zeros(w))  # LLVM's ctlz: one instruction
    w = w << np.uint64(zeros)
    hi, lo = _mul128(w, POW10_HI[q - MIN_Q])
    if hi & LOW9 == LOW9:  # the bits below the 54 kept may carry into them: add 64 more bits of 10^q
        extra, _ = _mul128(w, POW10_LO[q - MIN_Q])
        lo += extra
        hi += ONE if lo < extra else ZERO
    top = hi >> np.uint64(63)
    shift = top + np.uint64(9)
    mantissa = hi >> shift  # 54 bits: the 53 kept and the rounding bit
    exponent = ((217706 * q) >> 16) + 63 + np.int64(top) - zeros + 1023  # floor(q log2 10) + ... + the bias
    if lo <= ONE and -4 <= q <= 23 and mantissa & np.uint64(3) == ONE and mantissa << shift == hi:
        mantissa &= ~ONE  # exactly halfway (possible only for these q) and the kept bits odd: round to even
    mantissa = (mantissa + (mantissa & ONE)) >> ONE
    if mantissa >> np.uint64(53) != ZERO:
        mantissa >>= ONE
        exponent += 1
    if exponent <= 0 or exponent >= 0x7FF:  # subnormal or infinite
        return 0.0, False
    return float(mantissa) * POW2[exponent], True  # mantissa < 2^53, the result normal: exact


@njit
def _exponent_tail(buf, i, limit, written):
    """(the exponent's digits at buf[i:limit] appended to ``written``, capped at MAX_WRITTEN, where they end)."""
    while i < limit and 48 <= buf[i] <= 57:
        if written < MAX_WRITTEN:
            written = written * 10 + (buf[i] - 48)
        i += 1
    return written, i


@njit
def _long_mantissa(buf, i, end):
    """(w, q, truncated) for a mantissa buf[i:end] (digits and at most one point) of more than 19
    significant digits: w its first 19 (leading zeros skipped), q the exponent that goes with them,
    ``truncated`` whether a digit after them is not zero."""
    w, digits, q, truncated, point = ZERO, 0, 0, False, False
    for k in range(i, end):
        c = buf[k]
        if c == 46:
            point = True
        elif digits < MAX_DIGITS:
            if digits > 0 or c != 48:
                w = w * TEN + np.uint64(c - 48)
                digits += 1
            q -= 1 if point else 0
        else:
            q += 0 if point else 1
            truncated = truncated or c != 48
    return w, q, truncated


@njit(forceinline=True)
def _value(w, q, truncated, negative):
    """(float64 nearest (-1)^negative * w * 10^q, fast) (see the module docstring)."""
    if w == ZERO:
        value, fast = 0.0, True
    elif not truncated and w <= np.uint64(2 ** 53) and -22 <= q <= 22:
        x = float(w)
        value, fast = (x * POW10[q] if q >= 0 else x / POW10[-q]), True
    elif q < MIN_Q:  # below 2^64 * 10^-343, under half the smallest subnormal
        value, fast = 0.0, True
    elif q <= MAX_Q:
        value, fast = eisel_lemire(w, q)
        if fast and truncated:  # the true value lies in (w, w + 1) * 10^q
            above, same = eisel_lemire(w + ONE, q)  # w < 10^19: no overflow
            fast = same and above == value
    else:
        value, fast = 0.0, False
    return (value * -1.0 if negative else value), fast  # * -1.0: "-0" is -0.0


@njit(forceinline=True)
def fraction_runs(buf, i, limit, w):
    """(w, end, n): a fraction's digits after ``w``, in up to three eight-digit runs, without a loop;
    ``n`` is the last run's length (8: more digits may follow)."""
    n, value = digit_run(buf, i, limit)
    w, i = w * POWERS[n] + value, i + n
    if n == 8:
        n, value = digit_run(buf, i, limit)
        w, i = w * POWERS[n] + value, i + n
        if n == 8:
            n, value = digit_run(buf, i, limit)
            w, i = w * POWERS[n] + value, i + n
    return w, i, n


@njit
def _long_number(buf, a, limit):
    """:func:`parse_number` for any number of digits (runs of more than 8 read one digit at a time)."""
    negative = a < limit and buf[a] == 45
    i = start = a + 1 if a < limit and (buf[a] == 43 or buf[a] == 45) else a
    n, w = digit_run(buf, i, limit)
    i += n
    if n == 8:
        w, i = digit_tail(buf, i, limit, w)
    digits, q = i - start, 0
    if i < limit and buf[i] == 46:
        point = i
        i += 1
        w, i, n = fraction_runs(buf, i, limit, w)  # the fraction: up to 24 digits in three runs,
        if n == 8:                                  # then one by one
            w, i = digit_tail(buf, i, limit, w)
        q = point + 1 - i
        digits += i - point - 1
    if digits == 0:
        return (0.0, False), i
    truncated = False
    if digits > MAX_DIGITS:  # w wrapped, unless the extra digits are leading zeros
        w, q, truncated = _long_mantissa(buf, start, i)
    if i < limit and (buf[i] == 101 or buf[i] == 69):
        i += 1
        sign = -1 if i < limit and buf[i] == 45 else 1
        if i < limit and (buf[i] == 43 or buf[i] == 45):
            i += 1
        n, run = digit_run(buf, i, limit)
        written, i = np.int64(run), i + n
        if n == 8:
            written, i = _exponent_tail(buf, i, limit, written)
        if n == 0 or written >= MAX_WRITTEN:
            return (0.0, False), i
        q += sign * written
    return _value(w, q, truncated, negative), i


@njit(forceinline=True)
def quick_number(buf, a, limit):
    """(value, fast, end, long): :func:`parse_number` without a loop, for up to 7 digits before the point,
    24 after it and 7 in the exponent, and at most 19 in all; ``long`` True for any other number (read
    it with :func:`parse_number`). Inlined in a loop, it costs no reference counts on ``buf``
    (:mod:`~ordrank.datasets.digit_runs`)."""
    negative = a < limit and buf[a] == 45
    i = start = a + 1 if a < limit and (buf[a] == 43 or buf[a] == 45) else a
    n, w = digit_run(buf, i, limit)
    i += n
    long = n == 8
    digits, q = i - start, 0
    if i < limit and buf[i] == 46:
        point = i
        i += 1
        w, i, n = fraction_runs(buf, i, limit, w)
        long = long or n == 8
        q = point + 1 - i
        digits += i - point - 1
    if digits == 0:
        return 0.0, False, i, False
    long = long or digits > MAX_DIGITS
    if i < limit and (buf[i] == 101 or buf[i] == 69):
        i += 1
        sign = -1 if i < limit and buf[i] == 45 else 1
        if i < limit and (buf[i] == 43 or buf[i] == 45):
            i += 1
        n, written = digit_run(buf, i, limit)
        i += n
        long = long or n == 8
        if n == 0:
            return 0.0, False, i, False
        q += sign * np.int64(written)
    if long:
        return 0.0, False, i, True
    value, fast = _value(w, q, False, negative)
    return value, fast, i, False


@njit
def parse_number(buf, a, limit):
    """(value, fast, end): the number that starts at ``buf[a]`` and ends at ``end`` (see the module
    docstring); ``fast`` False: not read here (leave the token to Python's ``float()``). In a loop
    over many numbers, call :func:`quick_number` and this only for its ``long`` ones."""
    value, fast, end, long = quick_number(buf, a, limit)
    if not long:
        return value, fast, end
    (value, fast), end = _long_number(buf, a, limit)
    return value, fast, end
