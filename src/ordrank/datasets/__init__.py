"""Data: generators the project ships and loaders for real data in a data directory."""
from ordrank.datasets.synthetic import CrammerSinger

__all__ = ["CrammerSinger"]
