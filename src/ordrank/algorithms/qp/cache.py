"""A small LRU cache of compiled problems, keyed on the training data and on every other thing
that shapes the problem (the caller's ``key_params``: SVOR passes its class, k, kernel and kernel
parameters, variant, diagonal jitter and solver, see ``SVOR._cache_key``; a subclass that builds
another problem from the same parameters therefore gets its own entry).

A cvxpy problem whose data change only through a ``cp.Parameter`` (SVOR's C) is compiled once; its
solver workspace is kept with it, so a grid over that parameter, also across GridSearchCV's clones,
compiles once per training set. Entries are evicted least recently used first, once more than
``CACHE_SIZE`` are kept or their ``size`` attributes (about bytes / 150: a cached exact kernel
problem holds ~150 bytes per kernel entry) sum to more than ``CACHE_ENTRIES``.

:func:`reuse` opens a scope in which :func:`reused` keeps the one most recent value it built (e.g.
Reduction-SVM's extended Gram matrix, 288 MB at 667 rows and 10 ranks), so consecutive fits on
the same training rows and kernel share it; outside a scope :func:`reused` just builds. Model
selection (:meth:`ordrank.protocols.partitions.TrainTestPartitions.select`) opens one and visits
the grid points that share a kernel one after the other; the value is dropped when the scope ends.
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from contextlib import contextmanager

import numpy as np

CACHE_SIZE = 8         # compiled problems kept, and at most this many kernel entries (Σ size):
CACHE_ENTRIES = 1.3e7  # enough for 5 CV folds of n = 2000 (about 2 GB)
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()
cache_stats = {"hits": 0, "misses": 0}


_reuse = threading.local()  # .entry: None outside a scope, else (key, value) or ()


def clear_cache() -> None:
    """Drop every cached problem and reset ``cache_stats``."""
    with _cache_lock:
        _cache.clear()
        cache_stats.update(hits=0, misses=0)


def _key(arrays, key_params):
    digest = hashlib.blake2b(digest_size=16)
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(str(np.asarray(array).dtype).encode())
    return (digest.hexdigest(), *(np.shape(a) for a in arrays), *key_params)


def cached(arrays, key_params, build):
    """The cached object for these arrays (hashed: their bytes, dtype-exact) and hashable
    ``key_params``, or ``build()`` stored under LRU eviction (it needs a ``size`` attribute)."""
    key = _key(arrays, key_params)
    with _cache_lock:
        if key in _cache:
            cache_stats["hits"] += 1
            _cache.move_to_end(key)
            return _cache[key]
        cache_stats["misses"] += 1
    value = build()
    with _cache_lock:
        _cache[key] = value
        while len(_cache) > 1 and (len(_cache) > CACHE_SIZE
                                   or sum(v.size for v in _cache.values()) > CACHE_ENTRIES):
            _cache.popitem(last=False)
    return value


@contextmanager
def reuse():
    """A scope in which :func:`reused` keeps its last value (per thread; nested scopes share the
    outermost one's value)."""
    outer = getattr(_reuse, "entry", None)
    if outer is None:
        _reuse.entry = ()
    try:
        yield
    finally:
        if outer is None:
            _reuse.entry = None


def reused(arrays, key_params, build):
    """``build()``, or inside a :func:`reuse` scope the value kept from the last call with equal
    arrays (bytes, dtype and shape) and ``key_params``; a new value replaces the kept one (which
    is dropped before ``build`` runs, so two are never held). The caller must not modify it."""
    entry = getattr(_reuse, "entry", None)
    if entry is None:
        return build()
    key = _key(arrays, key_params)
    if entry and entry[0] == key:
        return entry[1]
    _reuse.entry = ()
    value = build()
    _reuse.entry = (key, value)
    return value
