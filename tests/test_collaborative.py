"""The EachMovie protocol: feature construction on a hand-made matrix, planning, and a tiny run."""
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from ordrank.algorithms import MulticlassPerceptron, PRank, WidrowHoff
from ordrank.datasets.ratings import Ratings
from ordrank.protocols.collaborative import EachMovieProtocol, centered_features, target_sequences

# 4 users × 5 movies, ranks 1..3 (0 = missing)
DENSE = np.array([
    [3, 1, 2, 0, 3],
    [1, 0, 3, 2, 2],
    [2, 3, 0, 1, 1],
    [0, 2, 2, 3, 0],
])


def hand_made():
    return Ratings(matrix=sp.csr_matrix(DENSE.astype(np.int8)), levels=np.array([1, 2, 3]),
                   user_ids=np.array([10, 20, 30, 40]), item_ids=np.arange(5), source="hand-made")


def test_centered_features_midpoint_and_user_mean():
    feats = centered_features(sp.csr_matrix(DENSE), n_levels=3).toarray()
    expected = np.where(DENSE > 0, (DENSE - 1) / 2 - 0.5, 0.0).T  # items × users, unit scale
    np.testing.assert_array_equal(feats, expected)
    assert feats[0, 2] == 0.0 and DENSE[2, 0] == 2  # the centre rating looks missing
    by_user = centered_features(sp.csr_matrix(DENSE), 3, center="user_mean").toarray().T
    rated = DENSE > 0
    np.testing.assert_allclose((by_user * rated).sum(1), 0, atol=1e-12)  # each user's mean is 0
    np.testing.assert_array_equal(by_user[~rated], 0)


def test_targets_own_ratings_never_among_features():
    feats = centered_features(sp.csr_matrix(DENSE), 3)
    ratings = sp.csr_matrix(DENSE)
    targets = np.array([0, 1, 2])
    items = np.array([[4, 0, 2], [3, 2, 4], [4, 1, 3]])
    X, y = target_sequences(feats, ratings, targets, items)
    assert X.shape == (3, 3, 4)
    np.testing.assert_array_equal(y, [[3, 3, 2], [2, 3, 2], [1, 3, 1]])
    for b, user in enumerate(targets):
        np.testing.assert_array_equal(X[b, :, user], 0)
        others = [u for u in range(4) if u != user]
        expected = np.where(DENSE[others][:, items[b]] > 0, (DENSE[others][:, items[b]] - 1) / 2 - 0.5, 0)
        np.testing.assert_array_equal(X[b][:, others], expected.T)


def test_sequence_of_unrated_movie_is_an_error():
    with pytest.raises(ValueError, match="did not rate"):
        target_sequences(centered_features(sp.csr_matrix(DENSE), 3), sp.csr_matrix(DENSE),
                         np.array([0]), np.array([[3]]))


def test_plan_keeps_users_and_shuffles_their_movies():
    ratings = hand_made()
    protocol = EachMovieProtocol(min_ratings=4, n_targets=None, record_every=1)
    kept, kept_ratings, targets, items = protocol.plan(ratings, seed=0)
    np.testing.assert_array_equal(kept, [0, 1, 2])  # user 40 has 3 ratings
    assert items.shape == (3, 4)
    for row, target in enumerate(targets):
        assert set(items[row]) == set(np.flatnonzero(DENSE[kept[target]]))
    again = protocol.plan(ratings, seed=0)[3]
    np.testing.assert_array_equal(items, again)


def by_algorithm(pieces):
    """The pieces of a run (one per batch and learner) joined into one table per learner."""
    table = pd.concat(pieces, ignore_index=True)
    return {name: part.sort_values(["seed", "step"], ignore_index=True)
            for name, part in table.groupby("algorithm", sort=False)}


def test_tiny_run_and_user_column():
    ratings = hand_made()
    protocol = EachMovieProtocol(min_ratings=4, n_targets=2, record_every=2, batch_size=1)
    pieces = list(protocol.iter_run(ratings, {"PRank": PRank(), "MCP": MulticlassPerceptron(),
                                              "WH": WidrowHoff(normalized=True)}, seed=1))
    assert [t.algorithm.iloc[0] for t in pieces] == ["PRank", "MCP", "WH"] * 2  # batch by batch
    assert [t.seed.unique().tolist() for t in pieces] == [[0]] * 3 + [[1]] * 3
    for table in by_algorithm(pieces).values():
        assert sorted(table.step.unique()) == [1, 2, 4]
        assert set(table.user) <= {10, 20, 30} and table.user.nunique() == 2
        assert table.groupby("seed").user.nunique().eq(1).all()  # one user per target
        assert table.value.between(0, 2).all()


def test_batching_does_not_change_results():
    ratings = hand_made()
    runs = [by_algorithm(EachMovieProtocol(min_ratings=4, n_targets=None, record_every=1, batch_size=b)
                         .iter_run(ratings, {"PRank": PRank()}, seed=3))["PRank"] for b in (1, 2, 64)]
    for other in runs[1:]:
        pd.testing.assert_frame_equal(runs[0], other, check_exact=True)


def test_a_batch_is_final_when_yielded():
    """Stopping after the first batch keeps exactly the rows the whole run gives those targets."""
    protocol = EachMovieProtocol(min_ratings=4, n_targets=None, record_every=1, batch_size=2)
    learners = {"PRank": PRank(), "MCP": MulticlassPerceptron()}
    whole = by_algorithm(protocol.iter_run(hand_made(), learners, seed=5))
    pieces = protocol.iter_run(hand_made(), learners, seed=5)
    first = [next(pieces), next(pieces)]
    pieces.close()
    for name, table in by_algorithm(first).items():
        assert table.seed.unique().tolist() == [0, 1]
        pd.testing.assert_frame_equal(table, whole[name][whole[name].seed < 2], check_exact=True)


@pytest.mark.parametrize("kwargs, message", [
    (dict(min_ratings=0), "min_ratings"),
    (dict(n_targets=-1), "n_targets"),
    (dict(min_ratings=100, n_rounds=200), "exceeds min_ratings"),
    (dict(center="median"), "center"),
])
def test_bad_protocol_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        EachMovieProtocol(**kwargs)


def test_too_few_kept_users():
    with pytest.raises(ValueError, match="only 0 users have >= 9 ratings"):
        EachMovieProtocol(min_ratings=9).plan(hand_made(), seed=0)


class Broken(PRank):
    """A learner whose update fails after two rounds."""

    def step(self, state, X, y):
        if getattr(self, "_calls", 0) >= 2:
            raise FloatingPointError("boom")
        self._calls = getattr(self, "_calls", 0) + 1
        return super().step(state, X, y)


def test_a_failing_learner_loses_nothing_of_the_others():
    protocol = EachMovieProtocol(min_ratings=4, n_targets=None, record_every=2, batch_size=1)
    tables = []
    with pytest.raises(RuntimeError, match="'Broken' failed: boom"):
        for table in protocol.iter_run(hand_made(), {"Broken": Broken(), "MCP": MulticlassPerceptron(),
                                                     "WH": WidrowHoff(normalized=True)}, seed=1):
            tables.append(table)
    assert [t.algorithm.iloc[0] for t in tables] == ["MCP", "WH"] * 3  # every batch of the others
    assert all(table.seed.nunique() == 3 for table in by_algorithm(tables).values())
