"""Protocols: how data is fed to learners and what is recorded.

``engine.run_sequences`` is the online engine; ``online`` (synthetic sequences) and
``collaborative`` (the EachMovie protocol) feed it; ``partitions`` is the train/test protocol with
model selection by cross-validation; ``subset_ranking`` trains rankers on subset-ranking queries
(the Predtron paper's Figure 1). Each protocol has ``keys``, the columns that identify a row of
its table besides experiment, dataset, algorithm and metric.
"""
from ordrank.protocols.collaborative import EachMovieProtocol
from ordrank.protocols.engine import run_sequences
from ordrank.protocols.online import OnlineSequences
from ordrank.protocols.subset_ranking import SubsetRankingProtocol

__all__ = ["EachMovieProtocol", "OnlineSequences", "SubsetRankingProtocol", "run_sequences"]
