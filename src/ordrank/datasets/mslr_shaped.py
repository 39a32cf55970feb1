r"""An MSLR-WEB10K/30K-shaped learning-to-rank generator (web-scale tests and benchmarks, no data needed).

MSLR-WEB10K (Qin & Liu, *Introducing LETOR 4.0 Datasets*, arXiv:1306.2597, 2013) has 10,000 queries
and 1,200,192 documents, 136 raw features per document (term counts, BM25 and language-model scores
of five streams, PageRank, URL lengths, click counts: no query-level normalization, values up to
about 1e6) and relevance grades 0–4 at about 51.7 / 32.5 / 13.4 / 1.8 / 0.6 %. WEB30K is the same
shape with 31,531 queries. No package ships either for offline use, so this module makes data of
that shape:

- ``round(10,000 · scale)`` queries (``scale`` = 1: WEB10K's shape, 3.15: WEB30K's), split 60 / 20 / 20 %
  into one fold's training, validation and test queries, as MSLR's folds are;
- documents per query long-tailed: ``⌈LogNormal(μ = 4.29, σ = 1)⌉`` capped at 1,250 (mean about 120);
- each document has latent factors ``z = u_q + v``, ``u_q ~ N(0, 0.5² I)`` shared by its query's
  documents and ``v ~ N(0, I)`` its own (``N_LATENT`` factors); its grade comes from the noisy
  non-linear score

  .. math:: g = 1.2 \tanh(z_0 + 0.5 z_1) + 0.6\, z_2 [z_3 > 0] + 0.4 \sin(2 z_4) + 0.3\, z_5 z_0 + ε,
            \qquad ε \sim N(0, 0.6^2),

  cut at the quantiles of MSLR's grade proportions (``GRADE_SHARES``), so some queries have no
  relevant document, as in MSLR;
- feature j is ``t_j(z·a_j + 0.7 ε_j)`` for sparse random loadings ``a_j`` (``‖a_j‖ = 1``, three
  factors) and a transform ``t_j`` of MSLR's kinds, in turn: a count ``⌊exp(c + s·x)⌋`` capped at
  1e6, a BM25-like sum ``m · softplus(x)``, a ratio ``sigmoid(x)`` rounded to 6 decimals, a sparse
  count (zero unless ``x > 0.8``), a language-model score ``−m · softplus(−x)`` (negative), and the
  last 11 columns document-level (PageRank-like ``exp(3 + 2.5 x)`` up to 1e6, URL lengths and slash
  counts, click counts). Columns thus span about 1e-6 to 1e6 and some are mostly zero.

Values are float32 (exact for the integer counts). Every draw comes from ``seed``: the same
arguments give the same arrays, byte for byte. :func:`mslr_shaped` returns the three parts in
memory; :func:`write_letor_folder` writes them as a LETOR folder (``Fold1/{train,vali,test}.txt``)
that :class:`ordrank.datasets.letor.LetorData` reads; :class:`MslrShaped` is the experiments'
dataset (``dataset=mslr_shaped dataset.scale=…``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ordrank.datasets.letor import Fold
from ordrank.datasets.letor_file import QuerySet, read_only

WEB10K_QUERIES = 10_000
N_FEATURES = 136
N_LATENT = 6
MAX_DOCUMENTS = 1_250
GRADE_SHARES = (0.517, 0.325, 0.134, 0.018, 0.006)
PART_SHARES = {"train": 0.6, "vali": 0.2, "test": 0.2}
KINDS = ("count", "bm25", "ratio", "sparse", "lm")
DOCUMENT_KINDS = ("pagerank", "url_length", "slashes", "clicks")


def _sizes(rng, n_queries: int) -> np.ndarray:
    sizes = np.ceil(rng.lognormal(4.29, 1.0, n_queries)).astype(np.int64)
    return np.clip(sizes, 1, MAX_DOCUMENTS)


def _feature(kind: str, x: np.ndarray, rng) -> np.ndarray:
    """Column values of one kind from its latent signal ``x`` (float64), as float32."""
    if kind == "count":
        values = np.minimum(np.floor(np.exp(rng.uniform(0.5, 4.0) + rng.uniform(0.5, 2.5) * x)), 1e6)
    elif kind == "bm25":
        values = rng.uniform(1.0, 50.0) * np.logaddexp(0.0, x)
    elif kind == "ratio":
        values = np.round(1.0 / (1.0 + np.exp(-x)), 6)
    elif kind == "sparse":
        values = np.where(x > 0.8, np.floor(np.exp(1.0 + x)), 0.0)
    elif kind == "lm":
        values = -rng.uniform(50.0, 900.0) * np.logaddexp(0.0, -x)
    elif kind == "pagerank":
        values = np.minimum(np.floor(np.exp(3.0 + 2.5 * x)), 1e6)
    elif kind == "url_length":
        values = np.clip(np.round(40.0 - 12.0 * x), 10.0, 200.0)
    elif kind == "slashes":
        values = np.clip(np.round(3.0 - 1.5 * x), 1.0, 20.0)
    else:  # clicks
        values = np.where(x > 1.0, np.floor(np.exp(2.0 * x)), 0.0)
    return values.astype(np.float32)


def _kinds(n_features: int) -> list[str]:
    n_document = min(11, n_features)
    stream = [KINDS[j % len(KINDS)] for j in range(n_features - n_document)]
    return stream + [DOCUMENT_KINDS[j % len(DOCUMENT_KINDS)] for j in range(n_document)]


def _check(scale, n_features) -> None:
    if isinstance(scale, bool) or not (isinstance(scale, (int, float)) and np.isfinite(scale) and scale > 0):
        raise ValueError(f"dataset.scale must be a positive number (1 = MSLR-WEB10K's shape), got {scale!r}")
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) or n_features < 1:
        raise ValueError(f"dataset.n_features must be a positive integer, got {n_features!r}")


def mslr_shaped(scale: float = 1.0, seed: int = 0, n_features: int = N_FEATURES) -> dict[str, QuerySet]:
    """The three parts (``train``, ``vali``, ``test``) of one MSLR-shaped fold (module docstring)."""
    _check(scale, n_features)
    rng = np.random.default_rng(seed)
    n_queries = max(int(round(WEB10K_QUERIES * scale)), 5)
    sizes = _sizes(rng, n_queries)
    # queries in a random order split 60 / 20 / 20 into the parts; rows laid out part by part, each
    # part's queries in increasing id; each part has its own arrays (a protocol may release one part
    # while it keeps another)
    cuts = np.round(np.cumsum([0.0, *PART_SHARES.values()]) * n_queries).astype(int)
    order = rng.permutation(n_queries)
    order = np.concatenate([np.sort(order[lo:hi]) for lo, hi in zip(cuts[:-1], cuts[1:])])
    qindex = np.repeat(order, sizes[order])
    n = len(qindex)
    z = rng.normal(0.0, 0.5, (n_queries, N_LATENT))[qindex] + rng.standard_normal((n, N_LATENT))
    g = (1.2 * np.tanh(z[:, 0] + 0.5 * z[:, 1]) + 0.6 * z[:, 2] * (z[:, 3] > 0) + 0.4 * np.sin(2 * z[:, 4])
         + 0.3 * z[:, 5] * z[:, 0] + rng.normal(0.0, 0.6, n))
    y = np.searchsorted(np.quantile(g, np.cumsum(GRADE_SHARES)[:-1]), g, side="right").astype(np.int64)
    del g
    rows = np.r_[0, np.cumsum([sizes[order[lo:hi]].sum() for lo, hi in zip(cuts[:-1], cuts[1:])])]
    spans = list(zip(rows[:-1], rows[1:]))
    Xs = [np.empty((hi - lo, n_features), dtype=np.float32) for lo, hi in spans]
    for j, kind in enumerate(_kinds(n_features)):
        loading = np.zeros(N_LATENT)
        factors = rng.choice(N_LATENT, 3, replace=False)
        loading[factors] = rng.standard_normal(3)
        x = z @ (loading / np.linalg.norm(loading)) + 0.7 * rng.standard_normal(n)
        column = _feature(kind, x, rng)
        for X, (lo, hi) in zip(Xs, spans):
            X[:, j] = column[lo:hi]
    del z
    qid = qindex + 1
    return {name: read_only(QuerySet(X, y[lo:hi].copy(), qid[lo:hi].copy(), None, Path(f"mslr_shaped/{name}")))
            for name, X, (lo, hi) in zip(PART_SHARES, Xs, spans)}


def _letor_lines(part: QuerySet) -> pa.Array:
    """The SVMlight lines of ``part`` (``label qid:Q 1:v ... d:v``, every feature written), built by
    Arrow's string kernels, column by column (no Python pass per row)."""
    def text(values):
        return pc.cast(pa.array(values), pa.string())

    columns = [text(part.y), pc.binary_join_element_wise("qid:", text(part.qid), "")]
    for j in range(part.X.shape[1]):
        columns.append(pc.binary_join_element_wise(f"{j + 1}:", text(part.X[:, j]), ""))
    return pc.binary_join_element_wise(*columns, " ")


def write_letor_folder(parts: dict[str, QuerySet], folder, chunk: int = 100_000) -> Path:
    """Write ``parts`` as ``folder/Fold1/{train,vali,test}.txt`` (LETOR 4.0's layout); return the folder."""
    fold = Path(folder) / "Fold1"
    fold.mkdir(parents=True, exist_ok=True)
    for name in ("train", "vali", "test"):
        part = parts[name]
        with open(fold / f"{name}.txt", "wb") as out:
            for start in range(0, len(part), chunk):
                rows = QuerySet(*(a[start:start + chunk] for a in (part.X, part.y, part.qid)), None, part.path)
                lines = pc.binary_join_element_wise(_letor_lines(rows), "", "\n")  # each line + LF
                offsets = np.frombuffer(lines.buffers()[1], np.int32)[lines.offset:lines.offset + len(lines) + 1]
                out.write(memoryview(lines.buffers()[2])[offsets[0]:offsets[-1]])
    return Path(folder)


@dataclass
class MslrShaped:
    """MSLR-shaped data for the LETOR protocol (``conf/dataset/mslr_shaped.yaml``): one fold, in memory.

    Parameters
    ----------
    scale : float
        Queries as a multiple of MSLR-WEB10K's 10,000 (1: WEB10K's shape; 3.15: WEB30K's).
    seed : int
        Every draw derives from it.
    n_features : int
        Columns (MSLR: 136).
    evaluation : str
        The LETOR evaluation script the ``letor_*`` metrics follow ("4.0", MSLR's release).
    """

    scale: float = 1.0
    seed: int = 0
    n_features: int = N_FEATURES
    evaluation: str = "4.0"

    def __post_init__(self):
        _check(self.scale, self.n_features)  # the settings checked now, the data drawn by fold()

    n_folds = 1
    fresh_folds = True  # fold() makes new arrays each call: a protocol may rescale them in place

    def fold(self, k: int) -> Fold:
        """The fold, drawn anew (the same arrays each time): nothing is kept between calls, so a
        protocol may rescale the parts in place (``fresh_folds``) and hold one copy of the data, not two."""
        if k != 1:
            raise IndexError(f"fold number must be 1 (MSLR-shaped data has one fold), got {k!r}")
        parts = mslr_shaped(self.scale, self.seed, self.n_features)
        return Fold("Fold1", parts["train"], parts["vali"], parts["test"], {})

    def folds(self):
        return iter([self.fold(1)])
