"""``X @ v`` and ``Xᵀ u`` in float64 arithmetic for float64 or float32 ``X``, without an n × d copy.

A float32 X (web-scale data: half the memory, half the bytes each product reads) is converted to
float64 a block of ``BLOCK`` rows at a time (a few MB, in cache), so products equal the float64
ones up to the order of the sums, and the solvers' certified gaps stay float64-accurate.
"""
from __future__ import annotations

import numpy as np

BLOCK = 4096


def matvec(X, v) -> np.ndarray:
    """``X @ v`` as float64."""
    if X.dtype == np.float64:
        return X @ v
    out = np.empty(X.shape[0])
    for start in range(0, X.shape[0], BLOCK):
        out[start:start + BLOCK] = X[start:start + BLOCK].astype(np.float64) @ v
    return out


def rmatvec(X, u) -> np.ndarray:
    """``Xᵀ u`` as float64."""
    if X.dtype == np.float64:
        return X.T @ u
    out = np.zeros(X.shape[1])
    for start in range(0, X.shape[0], BLOCK):
        out += u[start:start + BLOCK] @ X[start:start + BLOCK].astype(np.float64)
    return out


def weighted_gram(X, u) -> np.ndarray:
    """``Xᵀ diag(u) X`` for weights ``u ≥ 0`` as float64 (d × d): ``Bᵀ B`` with ``B = diag(√u) X`` over
    the rows of positive weight, a block of them at a time (BLAS's symmetric rank-k update)."""
    rows = np.flatnonzero(u > 0)
    root = np.sqrt(u[rows])
    out = np.zeros((X.shape[1], X.shape[1]))
    for start in range(0, len(rows), BLOCK):
        block = X[rows[start:start + BLOCK]].astype(np.float64) * root[start:start + BLOCK, None]
        out += block.T @ block
    return out
