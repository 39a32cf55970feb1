"""Predtron (Jain, Natarajan & Tewari, NIPS 2015): the parts of Algorithm 1 and its instances."""
from itertools import permutations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.utils.estimator_checks import parametrize_with_checks

from ordrank.algorithms.structured import PredtronClassifier, PredtronOrdinal, PredtronRanker
from ordrank.algorithms.structured.losses import MatrixLoss, NDCGLoss
from ordrank.algorithms.structured.ranker import POSITION_FUNCTIONS
from ordrank.algorithms.structured.spaces import FiniteSpace, Permutations
from ordrank.algorithms.structured.steps import pnorm_exponent, pnorm_link, pnorm_link_inverse
from ordrank.algorithms.structured.surrogate import predtron_round, surrogate
from ordrank.metrics import ndcg, ndcg_loss
from ordrank.protocols.engine import run_sequences
from conftest import UNORDERED_STRING_LABELS

F_CHOICES = [*POSITION_FUNCTIONS.values(), lambda i: np.exp(-i)]


def all_positions(m):
    """Every permutation of m documents as positions (m!, m)."""
    return np.array(list(permutations(range(1, m + 1))))


def brute_surrogate(space, t, y, sigma_y):
    """max over all m! rankings of L(σ, y) − ⟨rep(σ_y) − rep(σ), t⟩."""
    every = all_positions(len(t))
    losses = ndcg_loss(every, np.broadcast_to(y, every.shape))
    values = losses - (space.rep(sigma_y[None]) - space.rep(every)) @ t
    return values.max()


# --- NDCG ------------------------------------------------------------------------------------
def test_ndcg_by_hand():
    """y = (2, 0, 1) ranked as given: DCG = 3/log2(2) + 0/log2(3) + 1/log2(4) = 3.5; the ideal
    ranking (1, 3, 2) has DCG 3 + 1/log2(3)."""
    expected = 3.5 / (3 + 1 / np.log2(3))
    np.testing.assert_allclose(ndcg([[1, 2, 3]], [[2, 0, 1]]), [expected])
    np.testing.assert_allclose(ndcg([[1, 3, 2], [2, 1, 3]], [[2, 0, 1], [0, 0, 0]]), [1.0, 1.0])
    np.testing.assert_allclose(ndcg_loss([[1, 2, 3]], [[2, 0, 1]]), [1 - expected])


@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 30))
def test_ndcg_of_an_ideal_ranking_is_exactly_one(seed, m):
    """Any ranking by decreasing relevance (ties in any order) has loss exactly 0, not 1e-16: the
    Predtron's mistake test is L > 0."""
    rng = np.random.default_rng(seed)
    relevance = rng.integers(0, 5, size=m)
    order = np.lexsort((rng.permutation(m), -relevance))  # ties broken at random
    positions = np.empty(m, dtype=int)
    positions[order] = np.arange(1, m + 1)
    assert ndcg_loss(positions[None], relevance[None])[0] == 0.0


@pytest.mark.parametrize("positions, relevance, match", [
    ([[1, 1, 2]], [[1, 0, 0]], "permutation of 1..3"),
    ([[1, 2]], [[1, 0, 0]], "same shape"),
    ([[1, 2]], [[-1, 0]], ">= 0"),
])
def test_ndcg_bad_input(positions, relevance, match):
    with pytest.raises(ValueError, match=match):
        ndcg(positions, relevance)


# --- the surrogate on permutations (Lemma 3) -------------------------------------------------
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 6),
       which=st.sampled_from(range(len(F_CHOICES))))
def test_assignment_maximizer_equals_brute_force(seed, m, which):
    rng = np.random.default_rng(seed)
    space, loss = Permutations(F_CHOICES[which]), NDCGLoss()
    t = rng.normal(size=m) * rng.choice([0.1, 1.0, 10.0])
    y = rng.integers(0, 4, size=m)
    sigma_y = space.correct(loss, y[None], t[None])
    value, sigma_tilde = surrogate(space, loss, t[None], y[None], sigma_y)
    assert sorted(sigma_tilde[0]) == list(range(1, m + 1))
    np.testing.assert_allclose(value[0], brute_surrogate(space, t, y, sigma_y[0]), atol=1e-12)


@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 6),
       which=st.sampled_from(range(len(F_CHOICES))))
def test_pred_sorts_decreasingly_and_maximizes_similarity(seed, m, which):
    rng = np.random.default_rng(seed)
    space = Permutations(F_CHOICES[which])
    t = rng.integers(-2, 3, size=m).astype(float)  # with ties
    positions = space.pred(t[None])[0]
    order = np.argsort(positions)  # documents from the top
    assert np.all(np.diff(t[order]) <= 0)
    tied = np.diff(t[order]) == 0
    assert np.all(np.diff(order)[tied] > 0), "equal scores keep document order"
    best = (space.rep(all_positions(m)) @ t).max()
    np.testing.assert_allclose(space.rep(positions) @ t, best)
    np.testing.assert_allclose(np.linalg.norm(space.rep(positions)), 1.0)


@given(seed=st.integers(0, 2**32 - 1), m=st.integers(2, 8), lam=st.floats(0, 1),
       which=st.integers(0, len(F_CHOICES) - 1))
def test_surrogate_bounds_the_loss_and_is_convex(seed, m, lam, which):
    rng = np.random.default_rng(seed)
    space, loss = Permutations(F_CHOICES[which]), NDCGLoss()
    y = rng.integers(0, 4, size=(1, m))
    t1, t2 = rng.normal(size=(2, 1, m)) * rng.choice([0.1, 1.0, 10.0], size=2)[:, None, None]
    sigma_y = space.correct(loss, y, t1)  # one fixed member of Σ_y: φ(·, y) is then convex
    phi = {name: surrogate(space, loss, t, y, sigma_y)[0][0]
           for name, t in (("t1", t1), ("t2", t2), ("mix", lam * t1 + (1 - lam) * t2))}
    assert phi["mix"] <= lam * phi["t1"] + (1 - lam) * phi["t2"] + 1e-12
    for t in (t1, t2):
        value = surrogate(space, loss, t, y, space.correct(loss, y, t))[0][0]
        assert value >= loss(space.pred(t), y)[0] - 1e-12
        assert value >= -1e-12


def test_correct_member_follows_relevance_then_scores():
    space, loss = Permutations(POSITION_FUNCTIONS["inverse"]), NDCGLoss()
    sigma_y = space.correct(loss, np.array([[1, 0, 1, 0]]), np.array([[0.0, 5.0, 1.0, 5.0]]))
    # relevant documents 0, 2 first (2 has the higher score), then the tied 1, 3 by index
    assert sigma_y.tolist() == [[2, 3, 1, 4]]
    assert ndcg_loss(sigma_y, [[1, 0, 1, 0]])[0] == 0


def test_round_updates_only_on_mistakes():
    space, loss = Permutations(POSITION_FUNCTIONS["power_2"]), NDCGLoss()
    t = np.array([[3.0, 2.0, 1.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    y = np.array([[2, 1, 0], [2, 1, 0], [0, 0, 0]])
    predictions, losses, grad = predtron_round(space, loss, t, y)
    assert predictions.tolist() == [[1, 2, 3], [3, 2, 1], [3, 2, 1]]
    assert losses[0] == 0 and losses[1] > 0 and losses[2] == 0  # all-zero relevance: never a loss
    np.testing.assert_array_equal(grad[[0, 2]], 0)
    sigma_tilde = space.maximize(loss, t[1:2], y[1:2])
    np.testing.assert_allclose(grad[1], space.rep(sigma_tilde[0]) - space.rep(np.array([1, 2, 3])))


def test_position_function_must_decrease():
    with pytest.raises(ValueError, match="strictly decreasing"):
        Permutations(lambda i: i * 1.0).table(3)
    with pytest.raises(ValueError, match="finite"):
        Permutations(lambda i: np.where(i > 1, -1.0 * i, np.inf)).table(3)


# --- the ℓ1 step ------------------------------------------------------------------------------
@given(r=st.floats(1.05, 2.0), w=arrays(np.float64, (2, 7), elements=st.floats(-1e3, 1e3)))
def test_pnorm_link_and_inverse_are_inverses(r, w):
    atol = 1e-9 * (1 + np.abs(w).max())
    np.testing.assert_allclose(pnorm_link_inverse(pnorm_link(w, r), r), w, atol=atol)
    np.testing.assert_allclose(pnorm_link(pnorm_link_inverse(w, r), r), w, atol=atol)


@given(seed=st.integers(0, 2**32 - 1), r=st.floats(1.1, 3.0))
def test_pnorm_link_is_the_gradient_of_half_squared_norm(seed, r):
    w = np.random.default_rng(seed).normal(size=5)
    def psi(v):
        return 0.5 * np.sum(np.abs(v) ** r) ** (2 / r)

    h = 1e-6
    numeric = [(psi(w + h * e) - psi(w - h * e)) / (2 * h) for e in np.eye(5)]
    # |w_j|^{r−1} is steep near 0 for r < 2: central differences are good to about 1e-6 there
    np.testing.assert_allclose(pnorm_link(w[None], r)[0], numeric, rtol=1e-5, atol=1e-5)


def test_pnorm_exponent():
    assert pnorm_exponent(7) == 2.0
    np.testing.assert_allclose(pnorm_exponent(30), np.log(30) / (np.log(30) - 1))
    assert 1 < pnorm_exponent(2500) < pnorm_exponent(30) <= 2


# --- PredtronRanker ---------------------------------------------------------------------------
def ranking_data(rng, n, m, p):
    """Queries with Gaussian documents; relevance 2 / 1 / 0 by thresholds of a hidden ⟨x, w*⟩."""
    w_star = rng.normal(size=p)
    X = rng.normal(size=(n, m, p))
    s = X @ w_star
    return X, (s > 1).astype(int) + (s > -0.5).astype(int)


def flat(X, y):
    """Dense queries (n, m, p), (n, m) as rows, relevance and query ids."""
    n, m = np.shape(y)
    return np.reshape(X, (n * m, -1)), np.reshape(y, -1), np.repeat(np.arange(n), m)


def test_ranker_one_update_by_hand():
    rng = np.random.default_rng(0)
    X, y = ranking_data(rng, 1, 5, 3)
    model = PredtronRanker(f="power_1.1", eta=0.5).partial_fit(*flat(X, y))
    space, loss = Permutations(POSITION_FUNCTIONS["power_1.1"]), NDCGLoss()
    # from w = 0 every score ties: σ = identity; unless that is ideal, w = −η Xᵀ(rep(σ̃) − rep(σ_y))
    t = np.zeros((1, 5))
    assert ndcg_loss(space.pred(t), y)[0] > 0
    sigma_y, sigma_tilde = space.correct(loss, y, t), space.maximize(loss, t, y)
    expected = -0.5 * X[0].T @ (space.rep(sigma_tilde[0]) - space.rep(sigma_y[0]))
    np.testing.assert_allclose(model.coef_, expected)
    assert model.n_mistakes_ == 1


@pytest.mark.parametrize("margin", ["l2", "l1"])
@pytest.mark.parametrize("f", ["inverse", "power_1.1", "power_2"])
def test_ranker_separates_training_queries(f, margin):
    rng = np.random.default_rng(1)
    X, y, qid = flat(*ranking_data(rng, 40, 8, 10))
    model = PredtronRanker(f=f, margin=margin, n_epochs=200, stop_when_separated=True).fit(X, y, qid)
    assert model.n_epochs_ < 200
    assert model.score(X, y, qid) == 1.0
    assert model.predict(X).shape == (320,)
    if margin == "l1":
        np.testing.assert_allclose(model.coef_, pnorm_link_inverse(model.dual_coef_[None],
                                                                   pnorm_exponent(10))[0])


def test_ranker_fit_is_repeated_partial_fit():
    rng = np.random.default_rng(2)
    X, y = ranking_data(rng, 30, 6, 4)
    for margin in ("l2", "l1"):
        fitted = PredtronRanker(margin=margin, n_epochs=3, shuffle=True, random_state=5).fit(*flat(X, y))
        online = PredtronRanker(margin=margin)
        orders = np.random.RandomState(5)
        for _ in range(3):
            order = orders.permutation(30)
            online.partial_fit(*flat(X[order], y[order]))
        np.testing.assert_allclose(fitted.coef_, online.coef_)
        assert fitted.n_mistakes_ == online.n_mistakes_ > 0


def test_ranker_queries_of_different_lengths_are_rounds_of_the_rule():
    """Queries of 3, 7 and 5 documents (any ids, contiguous): fit is one rule round per query."""
    rng = np.random.default_rng(4)
    sizes, p = [3, 7, 5], 4
    queries = [ranking_data(rng, 1, m, p) for m in sizes]
    X = np.concatenate([q[0][0] for q in queries])
    y = np.concatenate([q[1][0] for q in queries])
    qid = np.repeat([30, 10, 20], sizes)
    model = PredtronRanker(margin="l1", n_epochs=2).fit(X, y, qid)
    state = model.init_state(1, p)
    for _ in range(2):
        for Xq, yq in queries:
            model.step(state, Xq, yq)
    np.testing.assert_allclose(model.coef_, state["coef"][0])
    np.testing.assert_allclose(model.decision_function(X), X @ state["coef"][0])
    with pytest.raises(ValueError, match="rows of query 30 are not contiguous"):
        model.fit(X, y, np.r_[qid[:-1], 30])


def test_ranker_qid_routed_through_grid_search_with_group_k_fold():
    """With metadata routing, GridSearchCV passes qid to fit and to score: each η's mean test score
    is the mean over the 3 folds of the mean NDCG@10 of the fold's test queries, computed here by
    hand (tests/ranking_oracle.py). Scoring each test fold as one query would give other numbers
    (measured: 0.847 and 0.838 per query, 0.685 and 0.651 as one query)."""
    import sklearn
    from sklearn.model_selection import GridSearchCV, GroupKFold

    from ranking_oracle import cross_validated_ndcg

    rng = np.random.default_rng(5)
    X, y, qid = flat(*ranking_data(rng, 12, 6, 3))
    noisy = rng.random(len(y)) < 0.3  # 30% of the labels drawn again: no η ranks every query perfectly
    y = np.where(noisy, rng.integers(0, 3, len(y)), y)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(PredtronRanker(n_epochs=2), {"eta": [0.5, 1.0]}, cv=GroupKFold(3))
        search.fit(X, y, qid=qid, groups=qid)
    per_query, one_query = zip(*(cross_validated_ndcg(PredtronRanker(n_epochs=2, eta=eta), X, y, qid,
                                                      GroupKFold(3)) for eta in (0.5, 1.0)))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], per_query, rtol=1e-12)
    assert search.best_score_ == pytest.approx(max(per_query), rel=1e-12)
    assert search.best_params_ == {"eta": (0.5, 1.0)[int(np.argmax(per_query))]}
    assert np.all(np.abs(np.subtract(per_query, one_query)) > 0.1)  # qid changes the numbers
    assert search.best_estimator_.coef_.shape == (3,)


def test_ranker_decision_function_and_ties():
    model = PredtronRanker().partial_fit(np.ones((3, 2)), [0, 0, 0])  # one query, no loss: w stays 0
    np.testing.assert_array_equal(model.coef_, 0)
    assert model.n_mistakes_ == 0
    assert model.predict(np.zeros((3, 2))).tolist() == [0, 0, 0]
    model.coef_ = np.array([1.0, 0.0])
    X = np.array([[0.0, 1], [2, 1], [1, 1]])
    np.testing.assert_array_equal(model.decision_function(X), [0.0, 2.0, 1.0])
    assert Permutations(POSITION_FUNCTIONS["inverse"]).pred(model.predict(X)[None]).tolist() == [[3, 1, 2]]
    assert model.score(X, [0, 2, 1], qid=[0, 0, 0]) == 1.0


@pytest.mark.parametrize("X, relevance, qid, match", [
    (np.zeros((4, 3, 2)), np.zeros(4), None, "Found array with dim 3"),
    (np.full((2, 2), np.nan), [0, 1], None, "Input X contains NaN"),
    (np.zeros((2, 2)), [0, 1, 2], None, "inconsistent numbers of samples"),
    (np.zeros((2, 2)), [0, -1], None, r"integers >= 0, got \[-1.0\] \(first at row 1\)"),
    (np.zeros((2, 2)), [0, 0.5], None, r"integers >= 0, got \[0.5\]"),
    (np.zeros((2, 2)), [0, 1], [0, 0, 0], "qid has 3 entries for 2 rows"),
    (np.zeros((0, 2)), np.zeros(0), None, "0 sample"),
])
def test_ranker_bad_input(X, relevance, qid, match):
    with pytest.raises(ValueError, match=match):
        PredtronRanker().fit(X, relevance, qid)


def test_ranker_bad_parameters_and_feature_mismatch():
    X, y = np.zeros((3, 2)), [0, 1, 2]
    with pytest.raises(ValueError, match="margin"):
        PredtronRanker(margin="l3").fit(X, y)
    with pytest.raises(ValueError, match="'f' parameter"):
        PredtronRanker(f="power_3").fit(X, y)
    with pytest.raises(ValueError, match="strictly decreasing"):
        PredtronRanker(f=lambda i: i * 1.0).fit(X, y)
    model = PredtronRanker().fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but PredtronRanker is expecting 2"):
        model.predict(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="X has 5 features, but PredtronRanker is expecting 2"):
        model.partial_fit(np.zeros((3, 5)), y)
    with pytest.raises(TypeError, match="takes no shape"):
        model.init_state(1, 2, n_ranks=3)


# --- finite spaces and matrix losses -----------------------------------------------------------
def test_matrix_losses_and_spaces():
    absolute = MatrixLoss.absolute(4)
    assert absolute(np.array([1, 4]), np.array([3, 1])).tolist() == [2, 3]
    assert (absolute.c_L, absolute.C_L) == (1.0, 3.0)
    with pytest.raises(ValueError, match="loss 0"):
        MatrixLoss([[1.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="unit Euclidean norm"):
        FiniteSpace([[2.0, 0.0]])
    signs = FiniteSpace.signs()
    assert signs.pred(np.array([[0.5], [0.0], [-1.0]])).tolist() == [2, 1, 1]


# --- PredtronOrdinal and PredtronClassifier -----------------------------------------------------
@parametrize_with_checks([PredtronOrdinal(), PredtronOrdinal(margin="l1"), PredtronClassifier(),
                          PredtronClassifier(margin="l1")],
                         expected_failed_checks=lambda estimator: {} if isinstance(
                             estimator, PredtronClassifier) else UNORDERED_STRING_LABELS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def perceptron(X, y):
    """Rosenblatt's perceptron from w = 0: predict +1 iff w·x > 0; on a mistake w ← w + y x."""
    w, predictions = np.zeros(X.shape[1]), []
    for x, label in zip(X, y):
        predictions.append(1 if w @ x > 0 else -1)
        if predictions[-1] != label:
            w = w + label * x
    return np.array(predictions), w


@settings(max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), noise=st.floats(0, 0.5))
def test_binary_predtron_is_the_perceptron(seed, noise):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 4))
    y = np.where(X @ rng.normal(size=4) + noise * rng.normal(size=120) > 0, 1, -1)
    expected, w = perceptron(X, y)
    model = PredtronClassifier(eta=0.5)  # the update w + 2η y x is then the perceptron's exactly
    predictions = []
    for t in range(len(y)):
        if t:
            predictions.append(model.predict(X[t : t + 1])[0])
        model.partial_fit(X[t : t + 1], y[t : t + 1], classes=[-1, 1])
    np.testing.assert_array_equal(predictions, expected[1:])  # round 1: w = 0 predicts −1 in both
    np.testing.assert_allclose(model.coef_[0], w)
    eta_one = PredtronClassifier().fit(X, y)
    np.testing.assert_allclose(eta_one.coef_[0], 2 * w)  # η = 1: the same predictions, w doubled


def test_multiclass_predtron_max_update_by_hand():
    model = PredtronClassifier().partial_fit([[1.0, 2.0]], [3], classes=[1, 2, 3])
    # W = 0: ŷ = 1 ≠ 3, σ̃ = argmax_σ 1[σ≠3] + 0 = 1 (lowest): W_3 += x, W_1 −= x
    np.testing.assert_array_equal(model.coef_, [[-1.0, -2.0], [0.0, 0.0], [1.0, 2.0]])
    model.partial_fit([[0.0, 1.0]], [2])  # t = (−2, 0, 2): ŷ = 3, σ̃ = 3
    np.testing.assert_array_equal(model.coef_, [[-1.0, -2.0], [0.0, 1.0], [1.0, 1.0]])
    # t = (−2, 1, 1) → 2 (tie: lowest), (−1, 0, 1) → 3, (1, 0, −1) → 1
    assert model.predict([[0.0, 1.0], [1.0, 0.0], [-1.0, 0.0]]).tolist() == [2, 3, 1]
    assert model.score([[0.0, 1.0], [1.0, 0.0], [-1.0, 0.0]], [2, 3, 3]) == pytest.approx(2 / 3)


def test_ordinal_predtron_update_by_hand():
    model = PredtronOrdinal(eta=0.5).partial_fit([[2.0]], [4], classes=[1, 2, 3, 4])
    # W = 0: ŷ = 1, σ̃ = argmax_σ |σ − 4| + 0 = 1: W_4 += 0.5x, W_1 −= 0.5x
    np.testing.assert_array_equal(model.coef_[:, 0], [-1.0, 0.0, 0.0, 1.0])
    model.partial_fit([[1.0]], [2])  # t = (−1, 0, 0, 1): ŷ = 4; values |σ−2| + t_σ = (0, 0, 1, 3)
    np.testing.assert_array_equal(model.coef_[:, 0], [-1.0, 0.5, 0.0, 0.5])
    assert model.predict([[1.0]]).tolist() == [2]


def test_ordinal_step_size_matters():
    """From W = 0, η scales W but not the loss in the maximizer, so predictions depend on η."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = 1 + np.digitize(X @ [1.0, -1.0, 0.5], [-1, 0, 1])
    small, large = (PredtronOrdinal(eta=eta).fit(X, y) for eta in (0.01, 100.0))
    assert not np.array_equal(small.predict(X), large.predict(X))


def ordinal_stream(rng, n, d, k, gamma):
    """Ranks by a PRank-style rule written as k prototypes W* on (x, 1) (unit Frobenius norm):
    W*_r·x̃ = Σ_{s<r} (w·x − b_s), whose argmax is 1 + #{s : w·x > b_s}; the points whose
    prototype margin (W*x̃)_y − max_{σ≠y} (W*x̃)_σ is at least γ."""
    w, b = rng.normal(size=d), np.sort(rng.normal(scale=0.5, size=k - 1))
    W = np.zeros((k, d + 1))
    for r in range(1, k):
        W[r] = W[r - 1] + np.r_[w, -b[r - 1]]
    W /= np.linalg.norm(W)
    X = np.c_[rng.uniform(-1, 1, size=(50 * n, d)), np.ones(50 * n)]
    scores = X @ W.T
    y = scores.argmax(1) + 1
    top2 = np.sort(scores, axis=1)[:, -2:]
    keep = top2[:, 1] - top2[:, 0] >= gamma
    assume(keep.sum() >= 20)
    return X[keep][:n], y[keep][:n], np.min((top2[:, 1] - top2[:, 0])[keep][:n])


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 6), d=st.integers(1, 4))
def test_ordinal_predtron_respects_theorem_1(seed, k, d):
    """Σ_τ |ŷ_τ − y_τ| ≤ 4 R² C_L² / (c_L γ²) with η = c_L/(4R²), c_L = 1, C_L = k − 1, on a
    separable stream: 100 points shown 30 times over, so a learner that kept erring would pass
    the bound (which holds for any length)."""
    X, y, gamma = ordinal_stream(np.random.default_rng(seed), 100, d, k, gamma=0.1)
    R2 = np.max(np.sum(X**2, axis=1))
    learner = PredtronOrdinal(eta=1 / (4 * R2))
    losses = run_sequences(learner, np.tile(X, (30, 1))[None], np.tile(y, 30)[None], k)
    assert losses.sum() <= 4 * R2 * (k - 1) ** 2 / gamma**2


def test_l1_ordinal_keeps_the_dual():
    X, y = np.random.default_rng(3).normal(size=(60, 5)), np.arange(60) % 3
    model = PredtronOrdinal(margin="l1", n_epochs=2).fit(X, y)
    r = pnorm_exponent(3 * 5)
    np.testing.assert_allclose(model.coef_, pnorm_link_inverse(model.dual_coef_[None], r)[0])
    assert not hasattr(PredtronOrdinal().fit(X, y), "dual_coef_")


def test_huge_inputs_raise_diverged():
    from ordrank.algorithms._ordinal import Diverged

    model = PredtronOrdinal().partial_fit([[1e300, 1e300]], [2], classes=[1, 2])
    with pytest.raises(Diverged, match="PredtronOrdinal.*scores W·x"):
        model.partial_fit([[1e300, 1e300]], [1])
