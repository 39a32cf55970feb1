r"""LETOR's official evaluation: NDCG@k, P@k and MAP as ``Eval-Score-3.0.pl`` computes them, or
``Eval-Score-4.0.pl`` (``version="4.0"``, for the LETOR 4.0 sets MQ2007 and MQ2008).

The LETOR 3.0 baselines (Qin, Liu, Xu & Li, *LETOR: a benchmark collection for research on learning
to rank for information retrieval*, Information Retrieval 13(4), 2010) were scored with the Perl
script ``Eval-Score-3.0.pl`` (Jun Xu and Tie-Yan Liu). The rules below were read from that script's
subroutines ``EvalQuery``, ``PrecisionAtN``, ``MAP``, ``DCG``, ``NDCG`` and ``OuputResults`` (two
public copies agree on them; both only edit the input-line regex), and from the dated comments of
``Eval-Score-4.0.pl`` (Jun Xu, 2009), which record what 4.0 changed:

1. **Gains** (``%hsNdcgRelScore``): label 2 → 3, 1 → 1, 0 → 0, i.e. 2^rel − 1.
2. **Discount** (``DCG``): positions 1 and 2 weight 1 (``$iPos < 2``, 0-based), position r ≥ 3
   weight log 2 / log r = 1/log2(r).
3. **Order** (``EvalQuery``): documents are sorted by line number, then by decreasing predicted
   score with Perl's ``sort`` (a merge sort, stable since Perl 5.8), so ties keep file order.
4. **Ideal DCG** (``NDCG``): the DCG of all the query's labels sorted by gain, cut at the same k.
   NDCG@k = 0 when that ideal DCG is 0 (a query without a relevant document).
5. **Beyond a query's length**: ``DCG``, ``NDCG`` and ``PrecisionAtN`` fill positions
   ``$iPos < $topN && $iPos < $#rates + 1`` only, and ``OuputResults`` sums what is there and divides
   by the number of queries — so for a query of n < k documents **both NDCG@k and P@k count 0**.
   (The script does this for P@k as well as NDCG@k.
   ``Eval-Score-4.0.pl`` changed P@k on 2009-4-24 to treat the missing positions as irrelevant,
   #relevant/k, but its NDCG@k still counts 0 there: its NDCG loop keeps ``$iPos < $#rates + 1``.)
6. **Relevant** for P@k and MAP (``%hsPrecisionRel``): labels 1 and 2. AP = Σ over relevant
   positions of (relevant so far / position), over the number of relevant documents in the query
   (all positions, no cut-off); 0 for a query without one.
7. **Mean** (``OuputResults``): every query of the test file, each with weight 1/#queries.

**LETOR 4.0** (``version="4.0"``; scorer names ``letor4_ndcg@k``, ``letor4_p@k``, ``letor4_map``).
Read from ``Eval-Score-4.0.pl`` ("modified by Jun Xu, March 3, 2009 (for Letor 4.0)", as embedded
in a public copy, mlpython's ``datasets/letor_mq2007.py``), subroutine by subroutine:

* ``PrecisionAtN`` (changed 2009-4-24): positions beyond the query's length count as irrelevant,
  so P@k = #{labels ≥ 1 in the top min(k, n)} / k — the only rule that differs from 3.0. (On a
  query of n ≥ k documents both give the same value.)
* ``DCG`` (changed the same day to fill the missing positions with label 0) and ``NDCG``:
  ``EvalQuery`` now calls ``NDCG($#rates + 1, @rates)``, the query's own length n, and ``NDCG``
  fills ``$iPos < $topN && $iPos < $#rates + 1``; ``OuputResults`` sums positions 1..10 of each
  query's list, where positions beyond n are undefined, i.e. 0. So NDCG@k of a query of n < k
  documents is still **0**, gains (2 → 3, 1 → 1), discounts (1, 1, 1/log2 r) and the ideal DCG
  unchanged: LETOR 4.0's NDCG@k equals 3.0's. (The June 2010 copy for the MSLR sets changed the
  discount to 1/log2(r + 1) and the relevance tables; it is not implemented here.)
* ``MAP`` and the mean over every query: unchanged.

So ``version="4.0"`` changes P@k only; ``letor4_ndcg@k`` and ``letor4_map`` exist so that a table
computed on LETOR 4.0 data names its convention in every metric.

Where ordrank differs from the script, on inputs LETOR's files do not have:

* labels above 2: the script's tables have no entry for them (gain 0, not relevant, with Perl
  warnings); here the gain stays 2^rel − 1 and every label ≥ 1 is relevant. Negative or
  non-integer labels are refused (the script's regex ``^(\d+) qid`` does not parse them).
* the script keys documents by ``#docid`` within a query, so a repeated docid overwrites the
  earlier line; here every row is a document (LETOR 3.0 OHSUMED has no repeated docid in a query).
* per-query values come in row order (the script lists them by numeric qid); the means are equal.

Checked once (not in the test suite, which has no Perl): the script's metric subroutines run by
Perl 5.36 on LETOR 3.0 OHSUMED S1..S5 with random scores rounded to 0.1 (many ties) give
P@1..10, MAP and NDCG@1..10 equal to :func:`evaluate` within 6e-16.
"""
from __future__ import annotations

import numpy as np

from ordrank.metrics._ranked import check_inputs, check_k, exponential_gains, rank, ranked_average_precision

MAX_POSITION = 10  # the script's $iMaxPosition: it reports P@1..10 and NDCG@1..10
VERSIONS = ("3.0", "4.0")  # Eval-Score-3.0.pl, Eval-Score-4.0.pl


def check_version(version: str, who: str) -> str:
    if version not in VERSIONS:
        raise ValueError(f"{who}: version must be one of {VERSIONS} (LETOR's Eval-Score-<version>.pl), "
                         f"got {version!r}")
    return version


def _ranked(y_true, y_score, qid, who):
    return rank(*check_inputs(y_true, y_score, qid, nonnegative=True, integer=True, who=who))


def discounts(ranks) -> np.ndarray:
    """LETOR's position weights: 1 at ranks 1 and 2, 1/log2(r) at rank r ≥ 3."""
    ranks = np.asarray(ranks, dtype=np.float64)
    return np.where(ranks <= 2, 1.0, 1.0 / np.log2(np.maximum(ranks, 2.0)))


def ndcg_at_k(y_true, y_score, qid=None, k: int | None = 10, version: str = "3.0") -> np.ndarray:
    """LETOR NDCG@k of each query (rules 1-5 above; the same under ``version="4.0"``); ``k=None`` =
    each query's whole list."""
    check_version(version, "letor ndcg_at_k")
    k = check_k(k, "letor ndcg_at_k")
    r = _ranked(y_true, y_score, qid, "letor ndcg_at_k")
    weights = np.where(r.rank <= (k if k is not None else np.inf), discounts(r.rank), 0.0)
    dcg = r.per_query(exponential_gains(r, r.rel) * weights)
    ideal = r.per_query(exponential_gains(r, r.ideal) * weights)
    values = np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)
    return values if k is None else np.where(r.sizes >= k, values, 0.0)


def precision_at_k(y_true, y_score, qid=None, k: int = 10, version: str = "3.0") -> np.ndarray:
    """LETOR P@k of each query: labels ≥ 1 in the top k, over k; for a query shorter than k, 0
    (``version="3.0"``) or the relevant documents it has over k (``"4.0"``)."""
    four = check_version(version, "letor precision_at_k") == "4.0"
    k = check_k(k, "letor precision_at_k", allow_none=False)
    r = _ranked(y_true, y_score, qid, "letor precision_at_k")
    found = r.per_query((r.rel >= 1) & (r.rank <= k)) / k
    return found if four else np.where(r.sizes >= k, found, 0.0)


def average_precision(y_true, y_score, qid=None, version: str = "3.0") -> np.ndarray:
    """LETOR average precision of each query (labels ≥ 1 relevant; 0 without one; the same under
    ``version="4.0"``). MAP = the mean."""
    check_version(version, "letor average_precision")
    r = _ranked(y_true, y_score, qid, "letor average_precision")
    return ranked_average_precision(r, r.rel >= 1)


def evaluate(y_true, y_score, qid=None, max_position: int = MAX_POSITION, version: str = "3.0"
             ) -> dict[str, float]:
    """The script's summary (``Eval-Score-<version>.pl``): ``P@1..max_position``, ``MAP``,
    ``NDCG@1..max_position``, each the mean over every query."""
    out = {f"P@{k}": float(np.mean(precision_at_k(y_true, y_score, qid, k, version)))
           for k in range(1, max_position + 1)}
    out["MAP"] = float(np.mean(average_precision(y_true, y_score, qid, version)))
    out.update({f"NDCG@{k}": float(np.mean(ndcg_at_k(y_true, y_score, qid, k, version)))
                for k in range(1, max_position + 1)})
    return out
