r"""LETOR's query-level normalization (Qin, Liu, Xu & Li, *LETOR*, Inf. Retr. 2010, "QueryLevelNorm").

Each feature is rescaled within each query to [0, 1]:

.. math:: x'_{dj} = \frac{x_{dj} - \min_{d' \in q} x_{d'j}}{\max_{d' \in q} x_{d'j} - \min_{d' \in q} x_{d'j}},

and 0 where a feature is constant within the query. It learns nothing across queries (each query is
rescaled from its own documents), so it is applied to the training, validation and test queries
alike before any learner sees them, as LETOR's QueryLevelNorm files were made. Raw web features
(counts up to 1e6, negative language-model scores, MSLR's 136 columns) then share one scale, which
linear rankers need (``docs/protocols.md``: feature scales).
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from ordrank.queries import check_qid, query_offsets

CHUNK_ROWS = 1 << 17  # queries are rescaled about this many rows at a time (bounded temporaries)


def query_level_norm(X, qid, out=None) -> np.ndarray:
    """``X`` rescaled per query and feature to [0, 1] (module docstring), in ``X``'s float dtype.

    ``out``: the array to write into, of X's shape and that dtype; ``out=X`` rescales X in place (no
    second matrix: each query's minima and ranges are taken before any row is overwritten)."""
    X = np.asarray(X)
    dtype = X.dtype if X.dtype.kind == "f" else np.float64
    qid = check_qid(qid, len(X))
    offsets = query_offsets(qid)
    if out is None:
        out = np.empty(X.shape, dtype=dtype)
    elif out.shape != X.shape or out.dtype != dtype or not out.flags.writeable:
        raise ValueError(f"query_level_norm: out must be a writable {dtype} array of shape {X.shape}, got "
                         f"{'a read-only ' if not out.flags.writeable else ''}{out.dtype} array of shape "
                         f"{out.shape}")
    if len(X) == 0:
        return out
    low = np.minimum.reduceat(X, offsets[:-1], axis=0).astype(dtype)
    span = np.maximum.reduceat(X, offsets[:-1], axis=0).astype(dtype) - low
    inverse = np.divide(1, span, out=np.zeros_like(span), where=span > 0)
    sizes = np.diff(offsets)
    # whole queries, about CHUNK_ROWS rows at a time
    cuts = np.unique(np.r_[np.searchsorted(offsets, np.arange(0, len(X), CHUNK_ROWS)), len(offsets) - 1])
    for q0, q1 in zip(cuts[:-1], cuts[1:]):
        r0, r1 = offsets[q0], offsets[q1]
        which = np.repeat(np.arange(q0, q1), sizes[q0:q1])
        np.subtract(X[r0:r1], low[which], out=out[r0:r1], dtype=dtype)
        out[r0:r1] *= inverse[which]
    return out


class QueryLevelNorm(TransformerMixin, BaseEstimator):
    """LETOR's query-level normalization as a feature map (``features=query_level_norm``).

    The query-folds protocol applies it to every part of a fold with each row's query
    (``transform(X, qid)``) before the learners see the data; it has nothing to fit.
    """

    per_query = True  # the protocol calls transform(X, qid) on each part (not a pipeline step)

    def fit(self, X, y=None, qid=None):
        return self

    def transform(self, X, qid=None, out=None):
        """``X`` rescaled per query (``out=X``: in place, see :func:`query_level_norm`)."""
        if qid is None:
            raise ValueError("QueryLevelNorm.transform needs qid (each row's query): it rescales each "
                             "feature within each query")
        return query_level_norm(X, qid, out=out)
