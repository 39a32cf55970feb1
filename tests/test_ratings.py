"""Tests of the MovieLens and EachMovie loaders on small written files and on the real MovieLens-100K."""
import re
import warnings

import numpy as np
import pytest

import ordrank.datasets.ratings as ratings_module
from ordrank.datasets.ratings import (
    PUBLISHED_FILES,
    load_eachmovie,
    load_movielens,
    load_movielens_100k,
)
from ordrank.datasets.data_dir import resolve_data_dir
from conftest import write

U_DATA = "12\t7\t5\t881250949\n3\t7\t1\t891717742\n12\t30\t3\t878887116\n5\t2\t4\t880606923\n"


def load_small_u_data(data_dir):
    with pytest.warns(UserWarning, match="not the published"):
        return load_movielens_100k(data_dir)


def rank(ratings, user, item):
    """Stored rank of original (user, item) ids."""
    row = np.flatnonzero(ratings.user_ids == user)[0]
    col = np.flatnonzero(ratings.item_ids == item)[0]
    return ratings.matrix[row, col]


def test_movielens_100k_small_file(tmp_path):
    path = write(tmp_path / "movielens-100k" / "u.data", U_DATA)
    ratings = load_small_u_data(tmp_path)
    assert ratings.matrix.shape == (3, 3)
    assert ratings.matrix.dtype == np.int8
    assert ratings.n_ratings == 4 and ratings.n_levels == 5
    np.testing.assert_array_equal(ratings.levels, [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(ratings.user_ids, [3, 5, 12])
    np.testing.assert_array_equal(ratings.item_ids, [2, 7, 30])
    assert [rank(ratings, u, i) for u, i in [(12, 7), (3, 7), (12, 30), (5, 2)]] == [5, 1, 3, 4]
    np.testing.assert_array_equal(ratings.users_with_at_least(2), [2])
    assert ratings.source == str(path)


def test_movielens_100k_zip_folder_name_and_env_var(tmp_path, monkeypatch):
    write(tmp_path / "ml-100k" / "u.data", U_DATA)
    monkeypatch.setenv("ORDRANK_DATA", str(tmp_path))
    assert resolve_data_dir() == tmp_path
    assert load_small_u_data(None).n_ratings == 4


def test_resolve_data_dir_default(monkeypatch):
    monkeypatch.delenv("ORDRANK_DATA", raising=False)
    assert str(resolve_data_dir()) == "data"
    assert str(resolve_data_dir("elsewhere")) == "elsewhere"


def test_resolve_data_dir_under_a_root(tmp_path, monkeypatch):
    """A notebook's kernel runs in notebooks/: it passes the repository root, under which the rule's
    relative paths (the default data/, a relative $ORDRANK_DATA or data_dir) are taken."""
    monkeypatch.delenv("ORDRANK_DATA", raising=False)
    assert resolve_data_dir(root=tmp_path) == tmp_path / "data"
    assert resolve_data_dir("elsewhere", root=tmp_path) == tmp_path / "elsewhere"
    monkeypatch.setenv("ORDRANK_DATA", "shared")
    assert resolve_data_dir(root=tmp_path) == tmp_path / "shared"
    monkeypatch.setenv("ORDRANK_DATA", str(tmp_path / "absolute"))
    assert resolve_data_dir(root="/nowhere") == tmp_path / "absolute"
    monkeypatch.setenv("ORDRANK_DATA", "")  # empty is unset, as everywhere
    assert resolve_data_dir(root=tmp_path) == tmp_path / "data"
    assert str(resolve_data_dir()) == "data"


def test_movielens_1m(tmp_path):
    path = write(tmp_path / "ml-1m" / "ratings.dat",
                 "1::1193::5::978300760\n1::661::3::978302109\n2::1193::2::978298413\n")
    for given in (tmp_path, path):
        ratings = load_movielens(given, "1m")
        assert ratings.matrix.shape == (2, 2)
        np.testing.assert_array_equal(ratings.levels, [1, 2, 3, 4, 5])
        np.testing.assert_array_equal(ratings.item_ids, [661, 1193])
        assert [rank(ratings, 1, 1193), rank(ratings, 1, 661), rank(ratings, 2, 1193)] == [5, 3, 2]


def test_movielens_10m_half_stars(tmp_path):
    write(tmp_path / "ml-10M100K" / "ratings.dat",
          "1::122::0.5::838985046\n1::185::5::838983525\n7::122::3.5::838983392\n")
    ratings = load_movielens(tmp_path, "10m")
    assert ratings.n_levels == 10
    np.testing.assert_allclose(ratings.levels, np.arange(1, 11) / 2)
    assert [rank(ratings, 1, 122), rank(ratings, 1, 185), rank(ratings, 7, 122)] == [1, 10, 7]


def test_movielens_unknown_variant(tmp_path):
    with pytest.raises(ValueError, match="variant"):
        load_movielens(tmp_path, "20m")


def test_eachmovie(tmp_path):
    write(tmp_path / "eachmovie" / "Vote.txt",
          "1\t1\t0.8\t1\t1996-03-25 11:20:36\n1\t5\t0\t1\t1996-03-25 11:21:00\n"
          "4\t1\t0.2\t0.5\t1996-04-01 09:00:00\n4\t9\t1\t1\t1996-04-01 09:02:10\n"
          "4\t5\t0.6\t1\t1996-04-01 09:03:00\n")
    ratings = load_eachmovie(tmp_path)
    assert ratings.matrix.shape == (2, 3) and ratings.n_levels == 6
    np.testing.assert_allclose(ratings.levels, [0, 0.2, 0.4, 0.6, 0.8, 1])
    assert [rank(ratings, u, i) for u, i in [(1, 1), (1, 5), (4, 1), (4, 9), (4, 5)]] == [5, 1, 2, 6, 4]


GOOD = ["1\t1\t3\t100", "1\t2\t4\t100", "2\t1\t5\t100", "2\t3\t1\t100"]


@pytest.mark.parametrize("line, bad_line, reason", [
    (1, "1\t9\t3", "expected 4 fields"),
    (3, "2\t9\t3\t100\t7", "expected 4 fields"),
    (2, "", "expected 4 fields"),
    (4, "2\tabc\t3\t100", "user and item ids must be integers"),
    (2, "1.5\t9\t3\t100", "user and item ids must be integers"),
    (3, "2\t9\tx\t100", "rating must be one of"),
    (4, "2\t9\t6\t100", "rating must be one of"),
    (2, "1\t9\t3.5\t100", "rating must be one of"),
    (3, "2\t9\tnan\t100", "rating must be one of"),
    (5, "2\t1\t2\t100", "duplicate rating of user 2 for item 1 \\(first given on line 3\\)"),
])
def test_malformed_u_data(tmp_path, line, bad_line, reason):
    lines = GOOD.copy()
    lines.insert(line - 1, bad_line)
    write(tmp_path / "movielens-100k" / "u.data", "\n".join(lines) + "\n")
    message = f"u.data, line {line}: {reason}.*{re.escape(repr(bad_line))}"
    with pytest.raises(ValueError, match=message), pytest.warns(UserWarning):
        load_movielens_100k(tmp_path)


def test_malformed_ratings_dat_and_vote_txt(tmp_path):
    write(tmp_path / "ml-1m" / "ratings.dat", "1::1193::5::978300760\n1::661:3::978302109\n")
    expected = r"ratings.dat, line 2: expected 4 fields separated by '::'.*'1::661:3::978302109'"
    with pytest.raises(ValueError, match=expected):
        load_movielens(tmp_path, "1m")
    write(tmp_path / "ml-1m" / "ratings.dat", "1::1193::5::978300760\n1::661::4.5::978302109\n")
    with pytest.raises(ValueError, match="ratings.dat, line 2: rating must be one of"):
        load_movielens(tmp_path, "1m")
    write(tmp_path / "eachmovie" / "Vote.txt", "1\t1\t0.8\t1\t1996-03-25\n1\t2\t0.3\t1\t1996-03-25\n")
    with pytest.raises(ValueError, match="Vote.txt, line 2: rating must be one of"):
        load_eachmovie(tmp_path)


def test_empty_file(tmp_path):
    write(tmp_path / "ml-1m" / "ratings.dat", "")
    with pytest.raises(ValueError, match="empty"):
        load_movielens(tmp_path)


def test_missing_files_explain_where_to_get_them(tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        load_movielens_100k(tmp_path)
    message = str(error.value)
    for expected in (tmp_path / "movielens-100k" / "u.data", tmp_path / "ml-100k" / "u.data"):
        assert str(expected) in message
    assert "ORDRANK_DATA" in message and "data_dir" in message
    assert "https://grouplens.org/datasets/movielens/" in message
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "ml-10M100K" / "ratings.dat"))):
        load_movielens(tmp_path, "10m")
    with pytest.raises(FileNotFoundError, match="(?s)eachmovie.Vote.txt.*ORDRANK_DATA.*Zenodo"):
        load_eachmovie(tmp_path)


def test_file_of_published_size_with_other_content_is_rejected(tmp_path):
    size, published = PUBLISHED_FILES["movielens-100k/u.data"]
    padded = (U_DATA * (size // len(U_DATA) + 1))[:size]
    write(tmp_path / "movielens-100k" / "u.data", padded)
    expected = f"u.data has the published size but sha256 [0-9a-f]{{64}} .*{published}"
    with pytest.raises(ValueError, match=expected):
        load_movielens_100k(tmp_path)


def test_new_published_entry_is_checked(tmp_path, monkeypatch):
    path = write(tmp_path / "ml-1m" / "ratings.dat", "1::1193::5::978300760\n")
    entry = (path.stat().st_size, "0" * 64)
    monkeypatch.setitem(ratings_module.PUBLISHED_FILES, "ml-1m/ratings.dat", entry)
    with pytest.raises(ValueError, match="corrupted"):
        load_movielens(tmp_path)


def test_real_movielens_100k(shared_data_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ratings = load_movielens_100k(shared_data_dir)
    assert ratings.matrix.shape == (943, 1682)
    assert ratings.n_ratings == 100_000
    np.testing.assert_array_equal(ratings.user_ids, np.arange(1, 944))
    np.testing.assert_array_equal(ratings.item_ids, np.arange(1, 1683))
    assert len(ratings.users_with_at_least(100)) == 364
    assert len(ratings.users_with_at_least(200)) == 149
    counts = np.bincount(ratings.matrix.data, minlength=6)[1:]
    assert dict(zip(range(1, 6), counts.tolist())) == {1: 6110, 2: 11370, 3: 27145, 4: 34174, 5: 21201}
