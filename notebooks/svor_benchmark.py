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
# # The batch benchmark: SVOR (Chu & Keerthi) and the reduction to binary classification (Li & Lin)
#
# Papers: W. Chu & S. S. Keerthi, *New approaches to support vector ordinal regression*, ICML 2005,
# and *Support vector ordinal regression*, Neural Computation 19(3), 2007 (SVORIM with implicit and SVOREX
# with explicit threshold constraints). L. Li & H.-T. Lin, *Ordinal regression by extended binary
# classification*, NIPS 2006 (the reduction: Reduction-SVM, Reduction-C4.5, Reduction-boost).
#
# The benchmark covers the 24 ORCA benchmarks: 12 discretized regression sets, each with 5 and with 10
# equal-frequency ranks, and the 20 train/test partitions of the ORCA review (Gutiérrez et al., IEEE
# TKDE 2016). It runs 17 learners: 11 of ordrank and 6 external learners (skordinal, mord).
# Model selection is 3-fold CV on the training part. This notebook only reads
# `results/svor_benchmark/benchmark.parquet` and the report CSVs beside it (`make reproduce` or `make benchmark`
# made them), then Wei Chu's partitions' table, `results/svor_benchmark_chu/`.

# %%
from pathlib import Path

import pandas as pd
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

ROOT = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "src" / "ordrank").is_dir())
RESULTS = ROOT / "results"
from ordrank.plotting import scatter_versus
from ordrank.reports import (average_ranks, fixed, friedman_line, markdown_table, paired_wilcoxon,
                             summary, yardstick_tests)
from ordrank.results import read_table, read_timings

# %matplotlib inline

BENCH = RESULTS / "svor_benchmark"
table = read_table(BENCH / "benchmark.parquet")
timings = read_timings(BENCH / "benchmark.parquet")  # fit and model-selection seconds, beside it
scored = table[table["metric"].isin(["mae", "zero_one"])]
print(f"{len(table)} rows: {scored['dataset'].nunique()} data sets, bins {sorted(table['bins'].unique())}, "
      f"{scored['split'].nunique()} partitions, {scored['algorithm'].nunique()} algorithms")
display(table.groupby("status").size().rename("rows").to_frame())

# %% [markdown]
# The report CSVs are generated from the table. As a check, the summary recomputed here must equal
# the committed `summary_*.csv` and `wilcoxon_*.csv` cell for cell (same fixed decimals).

# %%
for metric in ("mae", "zero_one"):
    for name, frame in (("summary", summary(table, metric)), ("wilcoxon", paired_wilcoxon(table, metric))):
        committed = pd.read_csv(BENCH / f"{name}_{metric}.csv", dtype=str, keep_default_na=False)
        recomputed = fixed(frame).astype(str)
        pd.testing.assert_frame_equal(recomputed.reset_index(drop=True), committed, check_dtype=False)
print("report CSVs agree with the table")

# %% [markdown]
# ## Test mean absolute error (mean ± s.e. over 20 partitions)

# %%
display(Markdown(markdown_table(table, "mae")))

# %% [markdown]
# ## Test zero-one error (of the model chosen for MAE)

# %%
display(Markdown(markdown_table(table, "zero_one")))

# %% [markdown]
# ## Li & Lin's comparisons as scatter plots
#
# One point per benchmark (data set and bin count): mean test MAE of the x algorithm against the y algorithm, with ± 1
# standard-error bars both ways. Points below the diagonal favour the y algorithm. Li & Lin compared
# Reduction-boost with RankBoost; RankBoost is not run here (it is in `boost_benchmark.ipynb`), and
# ORBoost (Lin & Li's all-threshold boosting, skordinal) is the nearest external learner.

# %%
PAIRS = [("SVORIM", "Reduction-SVM"), ("SVORIM", "Reduction-tree"), ("skordinal-ORBoost", "Reduction-boost")]
bins = sorted(table["bins"].unique())
fig, axes = plt.subplots(len(bins), 3, figsize=(13, 4.3 * len(bins)), squeeze=False)
for row, count in zip(axes, bins):
    for ax, (x, y) in zip(row, PAIRS):
        scatter_versus(table[table["bins"] == count], x, y, "mae", ax)
        ax.set_title(f"{ax.get_title()} ({count} ranks)", fontsize="medium")
fig.tight_layout()
plt.show()


# %%
def versus(metric, algorithm, reference):
    tests = paired_wilcoxon(table, metric, reference)
    rows = tests[tests["algorithm"] == algorithm].set_index(["dataset", "bins"])
    return rows[["n_pairs", "mean_difference", "pvalue", "sign"]]


mae_tests = {pair: versus("mae", pair[1], pair[0]) for pair in PAIRS}
counts = pd.DataFrame({f"{y} vs {x}": {
    "lower mean (better)": int((t["mean_difference"] < 0).sum()),
    "higher mean (worse)": int((t["mean_difference"] > 0).sum()),
    "significantly better (p < 0.05)": int(((t["pvalue"] < 0.05) & (t["mean_difference"] < 0)).sum()),
    "significantly worse (p < 0.05)": int(((t["pvalue"] < 0.05) & (t["mean_difference"] > 0)).sum()),
    "largest |mean difference|": round(float(t["mean_difference"].abs().max()), 3),
} for (x, y), t in mae_tests.items()})
display(counts)
display(mae_tests[("SVORIM", "Reduction-SVM")].round(4))

# %%
svm = mae_tests[("SVORIM", "Reduction-SVM")]
assert (svm["pvalue"] < 0.05).sum() == 1 and svm["mean_difference"].abs().max() < 0.02  # a tie, set by set
assert (paired_wilcoxon(table, "mae", "SVORIM").query("algorithm == 'Reduction-SVM'")["pvalue_holm"] > 0.05).all()
assert (mae_tests[("SVORIM", "Reduction-tree")]["mean_difference"] > 0).all()  # the tree loses everywhere
assert counts.loc["higher mean (worse)", "Reduction-boost vs skordinal-ORBoost"] == 15  # the claim below

# %% [markdown]
# ## SVORIM against SVOREX, and against the authors' code
#
# Chu & Keerthi found SVORIM better in MAE and SVOREX competitive or better in zero-one error.
# skordinal wraps their C SMO code, so its SVORIM and SVOREX are the authors' code beside ordrank's own
# solvers.

# %%
ex = {m: versus(m, "SVOREX", "SVORIM") for m in ("mae", "zero_one")}
n_bench = len(ex["mae"])
print("SVOREX − SVORIM, MAE: higher on", int((ex["mae"]["mean_difference"] > 0).sum()), f"of {n_bench} benchmarks;",
      "zero-one: lower on", int((ex["zero_one"]["mean_difference"] < 0).sum()), f"of {n_bench}")
display(pd.DataFrame({m: e["mean_difference"] for m, e in ex.items()}).round(4)
        .rename(columns=lambda m: f"SVOREX − SVORIM, {m}"))

# each method beside the C code of the same method: the report's "Against the yardsticks" section
pairs = yardstick_tests(table, "mae")
committed = pd.read_csv(BENCH / "yardsticks_mae.csv", dtype=str, keep_default_na=False)
pd.testing.assert_frame_equal(fixed(pairs).astype(str).reset_index(drop=True), committed, check_dtype=False)
display(pairs.groupby(["algorithm", "yardstick"], sort=False).agg(
    **{"mean difference (over sets)": ("mean_difference", "mean"),
       "largest |per-set difference|": ("mean_difference", lambda d: d.abs().max()),
       "sets above the C code": ("mean_difference", lambda d: int((d > 0).sum())),
       "sets with p (Holm) < 0.05": ("pvalue_holm", lambda p: int((p < 0.05).sum())),
       "partitions with the same (C, γ)": ("same_params", "sum")}).round(4))
svorex = pairs[pairs["algorithm"] == "SVOREX"]
assert (svorex["mean_difference"] > 0).sum() == 20 and (svorex["pvalue_holm"] < 0.05).sum() == 7  # the claims below
assert (pairs[pairs["algorithm"] != "SVOREX"]["pvalue_holm"] >= 0.05).all()

# %% [markdown]
# ## Average ranks (1 = best) and Friedman's test

# %%
average = {}
for metric in ("mae", "zero_one"):
    ranks, friedman = average_ranks(table, metric)
    print(f"{metric}: {friedman_line(friedman)}")
    average[f"average rank, {metric}"] = ranks.set_index("algorithm")["average_rank"]
display(pd.DataFrame(average).sort_values("average rank, mae").round(2))


# %% [markdown]
# ## Training time
#
# Refit time (one fit on the whole training part at the chosen hyper-parameters) and model-selection
# time, in seconds, mean over partitions. These are wall-clock times on a shared 2-core machine,
# measured while other jobs ran, so they are rough (most refits take milliseconds). ordrank's SVOR is
# solved by its default solver (`solver="auto"`: its SMO within a budget of pair steps, then an
# interior point written for its dual, one Cholesky factorization per Newton step).

# %%
def per_benchmark(metric):  # mean seconds over the partitions of each (data set, bins)
    rows = timings[timings["metric"] == metric]
    return rows.pivot_table(index=["dataset", "bins"], columns="algorithm", values="value")


wide, cv_wide = per_benchmark("fit_seconds"), per_benchmark("cv_seconds")
speed = pd.DataFrame({"SVORIM refit (s)": wide["SVORIM"], "Reduction-SVM refit (s)": wide["Reduction-SVM"],
                      "ratio": wide["Reduction-SVM"] / wide["SVORIM"],
                      "SVORIM model selection (s)": cv_wide["SVORIM"],
                      "Reduction-SVM model selection (s)": cv_wide["Reduction-SVM"]})
display(speed.round(3))
print("the reduction refits faster on", int((speed["ratio"] < 1).sum()), "of", len(speed), "benchmarks;",
      "its model selection is faster on", int((cv_wide["Reduction-SVM"] < cv_wide["SVORIM"]).sum()))
assert (speed["ratio"] < 1).sum() == 5 and (cv_wide["Reduction-SVM"] < cv_wide["SVORIM"]).sum() == 8  # below
assert [index for index in speed.index[speed["ratio"] < 1] if index[1] == 10] == [("bank2", 10), ("pyrim", 10)]
cv = timings[timings["metric"] == "cv_seconds"].groupby("algorithm")["value"].sum().sort_values(ascending=False)
assert cv["Reduction-SVM"] > cv["SVORIM"]  # in all, the reduction's model selection takes longer
display((cv / 60).round(1).rename("model selection, minutes in the jobs' timers").head(8).to_frame())

# %% [markdown]
# ## What matches the papers and what does not
#
# - **Reduction-SVM is as accurate as SVORIM (Li & Lin): reproduced as a tie.** Their mean MAEs
#   differ by at most about 0.013 on every one of the 24 benchmarks, and no paired Wilcoxon test is
#   significant after Holm's adjustment (one of 24 has p < 0.05 before it). Li & Lin's "often better
#   than SVORIM" is *not* reproduced: there is no significant difference either way.
# - **The reduction trains faster (Li & Lin): not reproduced against SVOR's default solver.** Its
#   refit is faster on 5 of 24 benchmarks only (3 of the 12 with 5 ranks, bank2 and pyrim with 10) and
#   its model selection on 8 (table above), 6.6 against 3.9 minutes in all; with 10 ranks, where the
#   reduction's extended problem has 9 copies of each row, SVOR's default solver refits faster on 10
#   of the 12. The caveat: both are our implementations, and the timings are rough (wall seconds of
#   jobs run two at a time on 2 cores; the refit ratios of several benchmarks lie within a few per
#   cent of 1, so another run counts a few more or fewer).
# - **Reduction-C4.5 competitive with SVORIM: not reproduced.** The entropy tree (the C4.5 stand-in) is
#   worse on all 24 benchmarks, by a wide margin.
# - **Reduction-boost better than RankBoost:** refuted in the `boost_benchmark` experiment
#   (`boost_benchmark.ipynb`). Against the stronger ORBoost, our AdaBoost of 50 stumps is worse on 15
#   of 24 benchmarks.
# - **SVOREX vs SVORIM (Chu & Keerthi): reproduced.** SVOREX has the higher MAE on 23 of 24 benchmarks
#   and the lower zero-one error on 17 of 24.
# - **The solvers agree with the authors' code.** ordrank's SVORIM / SVOREX and skordinal's C SMO
#   (the authors' algorithm) differ by 0.00002 (SVORIM) and 0.003 (SVOREX) MAE on average over the
#   benchmarks, at most 0.012 and 0.010 on one. The reduction agrees with libsvm-rank's REDSVM to within
#   0.005 on 99 % of the partitions. SVORIM's and the reduction's differences are significant nowhere;
#   SVOREX's are one-sided (above the C code on 20 of 24, Holm-significant on 7): the C code adds 0.001
#   to the Gram matrix's diagonal, which at C = 100 on these few training rows regularizes. Refitted
#   with `diagonal_jitter=0.001`, ordrank's SVOREX comes within 0.0005 of it
#   (`experiments/svor_refits.py`; docs/protocols.md).
# - **Beyond the papers:** the reduction with the perceptron kernel has the best average MAE rank
#   (4.7 of 17). Ordered logit, PRank and the boosted reduction are best on some benchmarks, and
#   Friedman's test rejects equal average ranks for both metrics.
#
# How this setup differs from the papers: the training sizes are ORCA's small ones for the four
# large sets (Chu & Keerthi used 3000–6000), and model selection uses 3 folds and a 3 × 3 grid
# instead of 5 folds and finer grids. Absolute errors are therefore not comparable with the papers'
# tables. The comparisons between methods are: every method sees the same partitions and the same
# selection protocol.

# %% [markdown]
# ## Wei Chu's partitions (`svor_benchmark_chu`)
#
# The same learners and model selection on Wei Chu's own 20 partitions of five sets (Chu &
# Ghahramani, JMLR 2005), with 5 and 10 **equal-length** bins: the protocol of Chu & Keerthi's first
# table. The errors are not comparable with ORCA's equal-frequency bins above, the comparisons
# between methods are. The same checks: the report CSVs agree with the table, and the claims hold.

# %%
CHU = RESULTS / "svor_benchmark_chu"
chu = read_table(CHU / "benchmark.parquet")
for metric in ("mae", "zero_one"):
    for name, frame in (("summary", summary(chu, metric)), ("wilcoxon", paired_wilcoxon(chu, metric))):
        committed = pd.read_csv(CHU / f"{name}_{metric}.csv", dtype=str, keep_default_na=False)
        pd.testing.assert_frame_equal(fixed(frame).astype(str).reset_index(drop=True), committed,
                                      check_dtype=False)
display(Markdown(markdown_table(chu, "mae")))
tests = paired_wilcoxon(chu, "mae", "SVORIM").set_index(["dataset", "bins"])
svm, tree = tests[tests["algorithm"] == "Reduction-SVM"], tests[tests["algorithm"] == "Reduction-tree"]
print("Reduction-SVM − SVORIM: lower mean on", int((svm["mean_difference"] < 0).sum()), "of", len(svm),
      "; largest |difference|", round(float(svm["mean_difference"].abs().max()), 3),
      "; smallest Holm-adjusted p", float(svm["pvalue_holm"].min()))
assert (svm["pvalue_holm"] > 0.05).all()  # a tie after Holm's adjustment, set by set
assert (tree["mean_difference"] > 0).all()  # the tree loses everywhere here too
