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
# # Predtron: subset ranking (Jain, Natarajan & Tewari, NIPS 2015, Figure 1)
#
# This notebook reviews the reproduction of the paper's Figure 1. The Predtron, with the NDCG loss and
# η = 1, learns to rank queries of m documents. Panels (a) and (b) compare three representations of a
# ranking, rep(σ) = f(σ)/Z with f(i) = 1/i, −i^1.1 and −i²: (a) against the number n of training
# queries, (b) against m. Panel (c) compares the ℓ1-margin (p-norm) step with the ℓ2 step on sparse
# data, against the number p of features.
#
# It reads only the committed tables in `results/predtron_*` (made by `make reproduce`). Values are
# mean test NDCG losses over 20 repetitions, ± 1 standard error. The choices the paper leaves open are
# in `docs/predtron.md`: the document centres, the data scale and 200 test queries. The number of
# passes is not given either, so every Predtron curve comes in two interpretations (the tables' key
# `passes_mode`): passes until a pass makes no mistake, capped at 50 (solid), and a single online pass
# (dashed). In (a), four batch rankers fitted on the same queries stand beside them (dotted): RankSVM,
# linear RankNet, LightGBM's LambdaMART and least squares.

# %%
from pathlib import Path

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

ROOT = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "src" / "ordrank").is_dir())
RESULTS = ROOT / "results"
import importlib.util

from ordrank.datasets.subset_ranking import GaussianSubsetRanking, level_histogram
from ordrank.results import read_table

spec = importlib.util.spec_from_file_location("plot_figure1", ROOT / "experiments" / "plot_figure1.py")
figure1 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(figure1)  # the figure and the README tables of Figure 1

# %matplotlib inline
tables = {letter: read_table(RESULTS / panel[0]) for letter, panel in figure1.PANELS.items()}
for letter, table in tables.items():
    print(letter, table["experiment"].iloc[0], len(table), "rows,", table["seed"].nunique(), "repetitions")

# %% [markdown]
# ## The data: how the relevance levels are spread
#
# The relevance of a document is m − j when its score ⟨X(i), w*⟩ lies between 1/(j + 1) and 1/j.
# So the top level needs a score ≥ 1/2, and the bands narrow down the list. The paper gives neither
# the centres μ_i nor the scale. Here μ_i ~ N(0, τ² I) and the rows have noise σ, with
# τ = σ = 0.2. Below, the share of documents per level (m = 20, p = 30, pooled over 50 tasks of
# 100 queries) for that choice and for τ = σ = 1.

# %%
rng = np.random.default_rng(0)
shares = {}
for label, generator in {"τ = σ = 0.2 (used)": GaussianSubsetRanking(),
                         "τ = σ = 1": GaussianSubsetRanking(1.0, 1.0)}.items():
    y = np.concatenate([generator.task(rng, 20, 30).sample(rng, 100)[1] for _ in range(50)])
    shares[label] = level_histogram(y, 20)
shares = pd.DataFrame(shares)
ax = shares.plot.bar(figsize=(9, 3), width=0.8)
ax.set(xlabel="relevance level", ylabel="share of documents", yscale="log")
plt.show()
display((100 * shares.T.assign(middle=shares.iloc[1:19].sum())[[0, 19, "middle"]]).round(1)
        .rename(columns={0: "level 0 (%)", 19: "top level (%)", "middle": "levels 1-18 (%)"}))
assert shares.iloc[1:19, 0].sum() > 0.3 > shares.iloc[1:19, 1].sum()

# %% [markdown]
# With τ = σ = 1, 36 % of documents tie at the top level and the 18 middle levels share 12 %. At the
# chosen scale they share 39 %, and every level is used.
#
# ## Figure 1

# %%
fig = figure1.figure(tables)
plt.show()

# %%
TITLES = {"a": "(a) m = 20, p = 30", "b": "(b) n = 30, p = 30", "c": "(c) s = 50, n = 50, m = 20"}
for letter, title in TITLES.items():
    display(Markdown(f"**{title}**\n\n" + figure1.markdown(tables[letter], letter)))


# %% [markdown]
# ## The checks behind the text below
#
# Each claim of the next section is asserted here against the tables.

# %%
def loss(letter, mode="until_separated"):
    """Mean test loss of one passes_mode, a row per grid value, a column per algorithm."""
    stats = figure1.summary(tables[letter], figure1.PANELS[letter][1])
    stats = stats[stats["passes_mode"] == mode]
    return stats.pivot(index=figure1.PANELS[letter][1], columns="algorithm", values="mean")


def training(letter, mode="until_separated"):
    """Per algorithm: share of fits that separated their training queries, mean passes, share capped."""
    t = tables[letter][tables[letter]["passes_mode"] == mode]
    wide = t.pivot_table(index=["algorithm", "seed", "n_train", "m", "p"], columns="metric", values="value")
    return wide.groupby("algorithm").agg(separated=("train_ndcg_loss", lambda v: (v == 0).mean()),
                                         passes=("passes", "mean"),
                                         capped=("passes", lambda v: (v == v.max()).mean()))


a, b, c = loss("a"), loss("b"), loss("c")
display(training("a").round(3), training("c").round(3))

# (c) reproduced: L1 grows slowly with p, L2 fast, L1 far below L2
assert (c["Predtron-L1"] < c["Predtron-L2"] / 5).all()
assert c["Predtron-L2"].iloc[-1] - c["Predtron-L2"].iloc[0] > 0.2
assert c["Predtron-L1"].iloc[-1] - c["Predtron-L1"].iloc[0] < 0.05
# (a) not reproduced: every curve falls with n, and 1/i is lowest at 9 of 10 n
assert (a.iloc[0] / a.iloc[-1]).between(30, 45).all()
assert (a.idxmin(axis=1) == "Predtron-inverse").sum() == 9
assert a.min().min() > 1e-4  # nowhere near the paper's "almost zero"
# 1/i separates its training set far more often than the power functions
sep = training("a")["separated"]
assert sep["Predtron-inverse"] > 0.9 and sep.drop("Predtron-inverse").max() < 0.1
# (b) not reproduced: the loss falls with m for every f, and 1/i is lowest at every m
assert (b.iloc[-1] < b.iloc[0] / 10).all()
assert (b.idxmin(axis=1) == "Predtron-inverse").all()

# one online pass: the paper's order of f in (a) and (b), 1/i the highest curve everywhere
a1, b1 = loss("a", "one"), loss("b", "one")
assert (a1.idxmax(axis=1) == "Predtron-inverse").all() and (b1.idxmax(axis=1) == "Predtron-inverse").all()
ratio = a1["Predtron-inverse"] / a1.drop(columns="Predtron-inverse").max(axis=1)
assert ratio.between(1.5, 2.6).all()  # "about twice": 1.6-2.5 times the higher of the other two
assert (a1 > 3 * a).all().all()  # one pass is well above the curves that cycle until separated
assert (b1.iloc[-1] < b1.iloc[0]).all()  # ... and the loss still falls with m
c1 = loss("c", "one")
assert (c1["Predtron-L1"] < c1["Predtron-L2"]).all()  # (c)'s order holds in one pass too

# the batch rankers of (a): linear RankNet lowest everywhere, RankSVM second; LambdaMART worst
batch = loss("a", "batch")
everything = pd.concat([a, a1.add_suffix(" (one pass)"), batch], axis=1)
assert (everything.idxmin(axis=1) == "RankNet").all()
assert (batch.drop(columns="RankNet").idxmin(axis=1) == "RankSVM").all()
assert (everything.idxmax(axis=1) == "LambdaMART").all()
assert (a.min(axis=1) / batch["RankNet"]).between(2, 6.5).all()
print("all checks hold")

# %% [markdown]
# ## What matches the paper and what does not
#
# - **(c), ℓ1 against ℓ2 margin: reproduced.** From p = 500 to 2500, the ℓ1 step's loss grows from
#   0.013 to 0.045 and the ℓ2 step's from 0.113 to 0.344. The paper reports a minor increase for ℓ1
#   and a significantly higher loss for ℓ2, as its bounds predict (log p against p).
# - **(a), the choice of f: reproduced only with a single pass.** The paper has −i^1.1 and −i² near
#   zero loss by n ≈ 60, with 1/i high at n = 100. With passes until the training set is separated
#   (solid), the three curves fall together, by a factor of 30–45 from n = 10 to 100, and 1/i is
#   lowest at 9 of the 10 values of n. The 1/i ranker also separates its training set (a pass
#   without a mistake) in about 95 % of fits, while −i^1.1 and −i² almost always stop at the 50-pass
#   cap. With **one online pass** (dashed), the paper's order appears at every n: 1/i is the highest
#   curve, 1.6–2.5 times the higher of the other two (0.012 against 0.0071 and 0.0064 at n = 100).
#   No curve comes near zero in either interpretation: the smallest mean is above 10⁻⁴.
# - **(b), the trend in m: not reproduced.** The paper's loss grows with m. Here it falls by more than
#   10× from m = 10 to m = 25, for every f, and 1/i is lowest at every m. In one pass it falls too,
#   with 1/i then the highest at every m, the paper's order of f.
# - **Beside the batch rankers (a), the online Predtron loses.** Linear RankNet is the lowest curve
#   at every n, RankSVM the second lowest of the batch rankers, and the best multi-pass Predtron is
#   2–6 times RankNet's loss. The data are linear and separable, which suits the linear pairwise
#   models. LambdaMART's trees are the highest curve at every n, and least squares on the levels
#   lies near the one-pass Predtron.
#
# The likely causes are measured in `docs/predtron.md` (sensitivity table). The order in (a)
# depends on the number of passes, which the paper does not give; a single pass over the n queries
# (an online algorithm with mistake bounds, run once) is the interpretation under which the paper's order
# appears, and an independent re-implementation (`tests/predtron_by_hand.py`) gives the
# committed numbers of both interpretations. A 200-pass cap or unit-scale data keep 1/i best at larger n.
# For (b), this generator adds only narrow bottom bands as m grows, and the NDCG loss barely weighs
# them. The larger queries are easier here even at an equal number of training documents. So the
# paper's generator, whose centres and scale it does not give, must differ from this one.
