# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # PRank: *Pranking with Ranking* (Crammer & Singer, NIPS 2001)
#
# This notebook reviews the reproduction of the paper's Figure 4: the time-averaged rank loss of
# PRank, the multiclass perceptron (MCP) and Widrow-Hoff (WH) on synthetic data, and on
# EachMovie-100 / EachMovie-200. EachMovie is withdrawn, so the collaborative-filtering protocol runs
# on an EachMovie-style generator and on real MovieLens-100K. The ordinal instance of the Predtron
# (Jain, Natarajan & Tewari, NIPS 2015), with its ℓ2 and ℓ1 margins (Predtron-L2, Predtron-L1), runs
# beside the paper's three learners; it is not in the paper's figure.
#
# Sections 1 and 2 read only the committed tables in `results/` (made by `make reproduce`). Section 3
# runs one small new experiment, which tests the explanation the README gives for PRank's result on
# rating data: the scale of the features. Tables give the mean ± 1 standard error over sequences or
# target users. Section 3's figure shows ± 1 standard error, and the learning curves (drawn by
# `ordrank.plotting.online_figure`) state their band's width in the legend.

# %%
from pathlib import Path

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from IPython.display import display

ROOT = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "src" / "ordrank").is_dir())
RESULTS = ROOT / "results"
from ordrank.plotting import online_figure
from ordrank.results import read_table, summarize

# %matplotlib inline


def last_round(table):
    """Mean ± standard error over seeds of each algorithm's loss at the last recorded round."""
    summary = summarize(table)
    last = summary[summary["step"] == summary["step"].max()]
    return last.set_index("algorithm")[["step", "mean", "sem", "n"]]


def cells(frame):
    return frame.apply(lambda r: f"{r['mean']:.3f} ± {r['sem']:.3f}", axis=1)


# %% [markdown]
# ## 1. Synthetic data (Figure 4, left)
#
# 100 sequences of 7000 rounds; x uniform on [0, 1]², the rank is the threshold of
# 10(x₁ − ½)(x₂ − ½) + noise; every learner sees the degree-2 polynomial kernel's explicit features.
# The paper plots PRank below WH, and WH below MCP.

# %%
synthetic = read_table(RESULTS / "prank_synthetic" / "crammer_singer.parquet")
fig = online_figure([("Synthetic", synthetic, "sequences")])
plt.show()
final = last_round(synthetic)
display(final.assign(loss=cells(final))[["step", "loss", "n"]].sort_values("step"))
order = final["mean"].sort_values().index.tolist()
print("order at the last round, lowest first:", " < ".join(order))
assert [a for a in order if a in ("PRank", "WH", "MCP")] == ["PRank", "WH", "MCP"]  # the paper's
assert order.index("WH") < order.index("Predtron-L2") < order.index("Predtron-L1") < order.index("MCP")

# %% [markdown]
# **Matches the paper.** PRank ends lowest (0.433), then WH (0.498), then MCP (0.657). The gaps
# (0.065 and more) are about 60 times the standard errors (0.001 over 100 sequences). One caveat,
# measured by a sweep over η (`docs/results/prank.md`): WH's place depends on its step size η, which
# the paper does not give. With η ≥ 0.1 WH ends *below* PRank (0.404 at η = 0.1), and with η ≤ 0.02
# it ends above MCP. So the full ordering holds only near the η = 0.05
# used here, which was chosen before any sweep.
#
# The ordinal Predtron lands between WH and MCP: Predtron-L2 at 0.529 and Predtron-L1 at 0.569. Its
# step size was picked once per margin on held-out sequences (seed 1; the config says how).

# %% [markdown]
# ## 2. EachMovie-100 and EachMovie-200 (Figure 4, middle and right)
#
# For a target user the instances are the movies they rated, in random order. A movie's features
# are the other kept users' ratings of it, centred and with missing ratings set to 0. The rank is the
# target's rating. Users with at least 100 (200) ratings are kept. The generator runs with 500
# random targets; on MovieLens-100K every kept user is a target (364 and 149).

# %%
SETTINGS = {  # title -> (table, rounds)
    "generator, EachMovie-100": "prank_eachmovie100/eachmovie_style.parquet",
    "generator, EachMovie-200": "prank_eachmovie200/eachmovie_style.parquet",
    "MovieLens-100K, ≥ 100 ratings": "prank_eachmovie100/movielens_100k.parquet",
    "MovieLens-100K, ≥ 200 ratings": "prank_eachmovie200/movielens_100k.parquet",
}
rating_tables = {title: read_table(RESULTS / path) for title, path in SETTINGS.items()}
titles = list(SETTINGS)
for pair in (titles[:2], titles[2:]):
    online_figure([(title, rating_tables[title], "target users") for title in pair])
    plt.show()

finals = {title: last_round(table) for title, table in rating_tables.items()}
overview = pd.DataFrame({title: cells(final) for title, final in finals.items()}).T
overview.insert(0, "targets", [int(f["n"].iloc[0]) for f in finals.values()])
overview.insert(0, "round", [int(f["step"].iloc[0]) for f in finals.values()])
display(overview[["round", "targets", "PRank", "MCP", "WH", "Predtron-L2", "Predtron-L1"]])
for title, final in finals.items():
    assert final["mean"].idxmax() == "PRank", title  # PRank ends last everywhere (the text below)
    assert final["mean"].idxmin() == "Predtron-L2", title  # ... and Predtron-L2 lowest

# %% [markdown]
# **Does not match the paper.** In Crammer & Singer's Figure 4, PRank has the lowest loss on
# EachMovie-100 and EachMovie-200. Here PRank ends **last in all four settings**, and of the paper's
# three learners MCP is best in three of them (WH in the fourth). The ordinal Predtron-L2, not in the
# paper, is lowest in all four (at MovieLens-100K ≥ 200, 0.780 against WH's 0.801, within the error
# bars). The gaps are many standard errors wide. This is a negative result
# for the claim, within what this protocol can test: the generator only imitates EachMovie, and
# MovieLens-100K is much smaller (364 and 149 kept users, against thousands in EachMovie). The README
# suggests a cause: **scale**. PRank moves each threshold by 1 per mistake while w·x moves by about
# ‖x‖², so the thresholds lag the projection when ‖x‖ is large. Section 3 tests this directly.

# %% [markdown]
# ## 3. Does a smaller feature scale restore PRank's lead?
#
# **The identity.** Run PRank from 0 on the stream (s·xₜ, yₜ), s > 0, with thresholds that move by 1 per
# mistake. It makes the same predictions as PRank on (xₜ, yₜ) with thresholds that move by
# η = 1/s² per mistake, and its model is (s·w, s²·b). By induction:
# s·w · s·x − s²·b_r = s²(w·x − b_r) has the same sign, so the prediction and the update
# coefficients τ are the same, and the updates w += (Σ τ_r)·s·x, b −= τ keep the relation.
# Shrinking x by s therefore makes PRank's thresholds move 1/s² times faster compared with its
# projection. MCP (prototypes s·W, argmax of s²·W·x) and normalized WH (w/s, step η/‖x‖²) are
# invariant to s.
#
# `ordrank.protocols.feature_scale` holds `ThresholdStepPRank` (PRank with threshold step η),
# `scaled_features(s)` (x ↦ s·(x, 1): the constant feature is scaled too) and `scale_sweep`, which
# runs the EachMovie protocol once per s. First, a numerical check of the identity on MovieLens-100K
# (EachMovie-100, all 364 targets), with every round recorded:

# %%
from ordrank.algorithms import MulticlassPerceptron, PRank, WidrowHoff
from ordrank.datasets.eachmovie_style import eachmovie_style
from ordrank.datasets.data_dir import resolve_data_dir
from ordrank.datasets.ratings import load_movielens_100k
from ordrank.protocols.feature_scale import ThresholdStepPRank, scale_sweep, scaled_features
from ordrank.protocols.collaborative import EachMovieProtocol, centered_features, target_sequences
from ordrank.reports.online import final_losses

movielens = load_movielens_100k(resolve_data_dir(root=ROOT))  # $ORDRANK_DATA, else data/ in the repository
every_round = EachMovieProtocol(min_ratings=100, n_targets=None, record_every=1, bias=False)


def losses(learner, scale):
    """Per-round rank loss (targets × 100 rounds), from the time-averaged curves of every round."""
    table = pd.concat(every_round.iter_run(movielens, {"PRank": learner}, scaled_features(scale), seed=0))
    averaged = table.pivot(index="seed", columns="step", values="value").to_numpy()
    return np.diff(averaged * np.arange(1, averaged.shape[1] + 1), prepend=0.0, axis=1).round()


at_one = losses(PRank(), 1.0)
rows = []
for s in (2.0**-2, 2.0**-5, 0.1, 0.3, 3.0):
    on_scaled = losses(PRank(), s)
    stepped = losses(ThresholdStepPRank(threshold_step=s**-2), 1.0)
    rows.append({"s": s, "threshold step 1/s²": s**-2,
                 "identical": np.array_equal(on_scaled, stepped),
                 "rounds with equal loss": (on_scaled == stepped).mean(),
                 "targets never differing": (on_scaled == stepped).all(1).mean(),
                 "final loss, PRank on s·x": on_scaled.mean(1).mean(),
                 "final loss, step 1/s² on x": stepped.mean(1).mean(),
                 "rounds equal to PRank at s = 1": (on_scaled == at_one).mean()})
identity = pd.DataFrame(rows)
display(identity.round(4))
assert identity.loc[:1, "identical"].all()  # powers of 2: bit for bit
assert (identity["rounds with equal loss"] > 0.98).all()
assert (identity["final loss, PRank on s·x"] - identity["final loss, step 1/s² on x"]).abs().max() < 0.005
assert (identity["rounds equal to PRank at s = 1"] < 0.9).all()  # ... while the scale itself matters

# %% [markdown]
# The losses are identical, round for round, when s is a power of 2, because scaling by 2ⁿ is exact in
# floating point. For other s, more than 98 % of rounds agree, and the final mean loss agrees to within
# 0.001, far below its standard error (0.01). The rest are, presumably, exact ties w·x = b_r, which are common here:
# the features are multiples of ¼ and PRank's thresholds are integers. Rounding after scaling breaks such
# a tie one way or the other, and from then on that target's run follows a different path. The
# last column shows that the scale itself changes PRank's predictions on 10 % or more of the rounds.
#
# Now the sweep: final loss against s over 13 values, 10⁻² … 10¹, for the three learners. The
# settings are the committed experiment's: WH normalized with η = 0.5, seed 0, the constant feature
# included. Three cases:
# MovieLens-100K at EachMovie-100 (364 targets) and at EachMovie-200 (149 targets), and a smaller
# generator (10,000 users, 1,190 kept at ≥ 100 ratings, 100 random targets), so that the notebook
# runs in seconds. The generator case is not the committed generator run (61,265 users, 500 targets),
# so its numbers differ from section 2.

# %%
LEARNERS = {"PRank": PRank(), "MCP": MulticlassPerceptron(), "WH": WidrowHoff(eta=0.5, normalized=True)}
SCALES = np.logspace(-2, 1, 13)
CASES = {  # title -> (data, protocol)
    "MovieLens-100K, ≥ 100 ratings": (movielens, EachMovieProtocol(min_ratings=100, n_targets=None)),
    "MovieLens-100K, ≥ 200 ratings": (movielens, EachMovieProtocol(min_ratings=200, n_targets=None)),
    "generator (10k users), ≥ 100 ratings": (eachmovie_style(n_users=10_000),
                                             EachMovieProtocol(min_ratings=100, n_targets=100)),
}


def median_norm2(data, protocol):
    """Median ‖x‖² (constant feature included) over the movies the targets meet."""
    kept, kept_ratings, targets, items = protocol.plan(data, seed=0)
    X, _ = target_sequences(centered_features(kept_ratings, data.n_levels), kept_ratings, targets, items)
    return float(np.median((X**2).sum(-1) + 1.0))


sweeps = {title: final_losses(scale_sweep(data, LEARNERS, SCALES, protocol, seed=0), by=("algorithm", "scale"))
          for title, (data, protocol) in CASES.items()}
norms = {title: median_norm2(data, protocol) for title, (data, protocol) in CASES.items()}

# at s = 1 the sweep is the committed run: same numbers as results/ (MovieLens cases)
for title in titles[2:]:
    at_one = sweeps[title][sweeps[title]["scale"] == 1.0].set_index("algorithm")["mean"]
    committed = finals[title]["mean"].loc[list(LEARNERS)]  # the sweep's three learners
    np.testing.assert_allclose(at_one.sort_index(), committed.sort_index(), rtol=1e-12)

# %%
from ordrank.plotting.curves import STYLE

fig, axes = plt.subplots(1, len(sweeps), figsize=(4.6 * len(sweeps), 3.9), sharey=False)
for ax, (title, summary) in zip(axes, sweeps.items()):
    for name, rows in summary.groupby("algorithm", sort=False):
        ax.errorbar(rows["scale"], rows["mean"], yerr=rows["sem"], label=name, color=STYLE.get(name),
                    marker="o", ms=3, lw=1.3, capsize=2)
    ax.axvline(1.0, color="0.5", ls=":", lw=1)
    ax.axvline(norms[title] ** -0.5, color="0.3", ls="--", lw=1)
    ax.set(xscale="log", xlabel="feature scale s (PRank's threshold step is 1/s²)",
           ylabel="time-averaged rank loss, last round")
    ax.set_title(f"{title}\n(median ‖x‖² = {norms[title]:.0f}; dashed: s = 1/√median)", fontsize="medium")
    ax.grid(alpha=0.3)
axes[0].legend(frameon=False, title="mean ± 1 s.e.", title_fontsize="small")
fig.tight_layout()
plt.show()

rows = []
for title, summary in sweeps.items():
    wide = summary.pivot(index="scale", columns="algorithm", values="mean")
    best = wide["PRank"].idxmin()
    rows.append({"case": title, "PRank at s = 1": wide.loc[1.0, "PRank"], "PRank best": wide["PRank"].min(),
                 "at s": best, "s²·median ‖x‖² there": best**2 * norms[title],
                 "PRank at s = 0.01": wide.loc[0.01, "PRank"],
                 "MCP (range over s)": f"{wide['MCP'].min():.3f}–{wide['MCP'].max():.3f}",
                 "WH (range over s)": f"{wide['WH'].min():.3f}–{wide['WH'].max():.3f}",
                 "PRank best − best other": wide["PRank"].min() - min(wide["MCP"].min(), wide["WH"].min())})
scale_summary = pd.DataFrame(rows).set_index("case")
display(scale_summary.round(3))
assert (scale_summary["PRank best"] < scale_summary["PRank at s = 1"]).all()  # a smaller scale helps PRank
assert (scale_summary["PRank best − best other"] > 0).all()  # ... but never enough to lead

# %% [markdown]
# **What the plot shows.**
#
# - **PRank depends strongly on the scale, and the baselines do not.** The WH curves are flat, and MCP
#   moves by at most 0.003, from ties broken the other way in floating point. PRank's loss at the
#   default s = 1 is far from its best. Its best grid point is s ≈ 0.32 on MovieLens-100K
#   (0.959 instead of 1.091 at EachMovie-100; 0.938 instead of 0.978 at EachMovie-200) and
#   s ≈ 0.18 on the generator (1.345 instead of 1.654). There s²·median ‖x‖² is 0.6–1.2, so the
#   typical move of w·x after a mistake is about the thresholds' move of 1, as the scale
#   explanation predicts (the dashed lines mark s = 1/√median ‖x‖²). With larger s, PRank gets much
#   worse (1.6–1.95 at s = 10). With very small s, the thresholds move so fast that they dominate the
#   projection, and the loss settles at a plateau a little above the best (0.996, 0.974, 1.407).
# - **A smaller scale does not restore PRank's lead over MCP.** At its best s, PRank is still
#   behind MCP in all three cases (0.959 vs 0.889; 0.938 vs 0.864; 1.345 vs 1.283: gaps of 0.06–0.07,
#   against standard errors of 0.01–0.017). On MovieLens-100K it also stays behind WH (0.913 and 0.801). Only on the
#   generator does the scale change the order against WH: PRank beats WH (1.470) for every
#   s ≤ 0.32, ties it at s ≈ 0.56, and loses at the default s = 1.
# - So the scale explains a large part of PRank's gap at the default setting: two thirds of its
#   distance to MCP at MovieLens EachMovie-100, a third at EachMovie-200, and over 80 % on the
#   generator. It does not explain all of it. On this protocol, the paper's claim that PRank beats MCP
#   on rating data is not reproduced at any scale in 10⁻² … 10¹.
# - The best s was picked by looking at the final loss, so "PRank best" is an optimistic figure for
#   PRank. MCP is not tuned (it has no parameter); WH's η = 0.5 was chosen on MovieLens-100K (see the
#   README).
#
# Not tested here: the generator at full EachMovie scale (61,265 users; median ‖x‖² ≈ 193, where the
# README's `unit_norm` run brought PRank to 1.418 against MCP's 1.406), and more seeds: one seed, one
# generator draw and one target order per case.
