"""The Predtron framework (Jain, Natarajan & Tewari, NIPS 2015) and its instances.

Algorithm 1 is put together from plain parts, each in a module of its own: a loss
(:mod:`.losses`), a prediction space with its representation, decoding and surrogate maximizer
(:mod:`.spaces`), the surrogate and one mistake-driven round (:mod:`.surrogate`) and the step for
an ℓ2 or ℓ1 margin (:mod:`.steps`). Instances: :class:`PredtronRanker` (subset ranking, NDCG),
:class:`PredtronOrdinal` (ordinal regression, rank loss; an online ordinal learner like PRank) and
:class:`PredtronClassifier` (binary and multiclass, 0-1 loss).
"""
from ordrank.algorithms.structured.classifier import PredtronClassifier
from ordrank.algorithms.structured.ordinal import PredtronOrdinal
from ordrank.algorithms.structured.ranker import PredtronRanker

__all__ = ["PredtronRanker", "PredtronOrdinal", "PredtronClassifier"]
