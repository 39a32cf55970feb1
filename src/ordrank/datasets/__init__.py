"""Data: generators the project ships and loaders for real data in a data directory.

The EachMovie-style generator is ``ordrank.datasets.eachmovie_style.eachmovie_style`` (not
re-exported here: the function would shadow its module of the same name).
"""
from ordrank.datasets.data_dir import resolve_data_dir
from ordrank.datasets.ratings import Ratings, load_eachmovie, load_movielens, load_movielens_100k
from ordrank.datasets.synthetic import CrammerSinger

__all__ = ["CrammerSinger", "Ratings", "load_eachmovie", "load_movielens", "load_movielens_100k",
           "resolve_data_dir"]
