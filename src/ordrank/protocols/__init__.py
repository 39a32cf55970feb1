"""Protocols: how data is fed to learners and what is recorded."""
from ordrank.protocols.collaborative import EachMovieProtocol
from ordrank.protocols.online import OnlineSequences, run_sequences

__all__ = ["EachMovieProtocol", "OnlineSequences", "run_sequences"]
