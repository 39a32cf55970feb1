# Two commands do everything on a fresh clone (Python 3.11 + pip):
#   make run    set up .venv, run the main job, publish its table to results/ and draw figures/
#   make test   set up .venv and run the whole test suite (slow reproduction checks included)
# Every paper experiment, its tables, figures and the docs/results pages' tables (times: docs/speed.md):
#   make reproduce         (needs the data sets of `python -m ordrank.data list` under $ORDRANK_DATA)
#   make reproduce-quick   (the same code paths at small sizes, into build/quick/)
# Other commands run inside the venv: `source .venv/bin/activate` after `make setup`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# The pinned versions (with hashes) `make setup` installs: requirements.lock, made by `make lock` (uv) from
# pyproject.toml's ranges; `make test-latest` runs the suite against the newest versions those ranges allow.
LOCK   := requirements.lock
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml $(LOCK) | cksum | cut -d' ' -f1)
# Data: $ORDRANK_DATA if set, else data/ (where `python -m ordrank.data fetch` puts it): one rule for
# every entry point; make sets nothing (CI sets ORDRANK_DATA itself, in .ci/run).
# numpy's transparent-huge-page advice off for every command (as run.py sets it; see its comment):
export NUMPY_MADVISE_HUGEPAGE ?= 0

.PHONY: setup lock test-latest run reproduce reproduce-quick papers-sizes cluster-services benchmark benchmark-quick test test-fast figures bench bench-web clean

# uv (pip-installed into the venv, pinned) installs the lock, bytecode included, on every core, then ordrank
# (editable); where uv cannot (an index only pip's configuration knows, no network to PyPI), pip does both.
UV     := uv==0.13.10
$(STAMP): pyproject.toml $(LOCK)
	@echo "make: setting up $(VENV) (the pinned $(LOCK), then ordrank itself; quiet; once per lock)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet '$(UV)' || echo "make: uv could not be installed; pip installs the lock"
	{ test -x $(BIN)/uv && $(BIN)/uv pip install --quiet --python $(BIN)/python --require-hashes --compile-bytecode \
		-r $(LOCK) && $(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .; } \
		|| { $(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK) \
		     && $(BIN)/python -m pip install --quiet --no-deps -e .; }
	rm -f $(VENV)/.installed-* && touch $@

setup: $(STAMP)

# Re-pin requirements.lock (every platform, Python 3.11) from pyproject.toml's ranges, keeping the pinned
# versions that still fit; `make lock UPGRADE=--upgrade` takes the newest versions the ranges allow.
UPGRADE ?=
lock: $(STAMP)
	$(BIN)/python -m pip install --quiet '$(UV)'
	$(BIN)/uv pip compile pyproject.toml --extra dev --generate-hashes --universal --python-version 3.11.7 \
		--custom-compile-command "make lock" -o $(LOCK) $(UPGRADE)

# The suite against the newest versions pyproject.toml allows (its own venv, .venv-latest; not the lock):
# what the next `make lock UPGRADE=--upgrade` would bring.
test-latest:
	test -x .venv-latest/bin/python || $(PYTHON) -m venv .venv-latest
	.venv-latest/bin/python -m pip install --quiet --upgrade pip
	.venv-latest/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[dev]'
	.venv-latest/bin/python -m pytest $(XDIST)

run: $(STAMP)
	$(BIN)/python run.py +experiment=prank_synthetic publish=true
	$(BIN)/python experiments/plot_figure4.py

# Every paper experiment (experiments/reproduce.py --list), then every report, figure and results page table.
# It checks the data first; every sweep job is recomputed (--fresh) through a scratch table under build/sweeps/,
# so a killed run started again runs only the jobs it lacks.
# External learners' pieces (skordinal, mord) come from results/<experiment>/external_cache.parquet where it has them;
# `make reproduce EXTERNAL=rerun` fits them again (docs/sweeps.md: External cache).
EXTERNAL ?= cached
reproduce: $(STAMP)
	$(BIN)/python experiments/reproduce.py --fresh --external $(EXTERNAL)

reproduce-quick: $(STAMP)   ## the same at small sizes, into build/quick/ (never the committed results)
	$(BIN)/python experiments/reproduce.py --quick --fresh

# The batch benchmark at the papers' training sizes (960 jobs, about 110 CPU-hours; docs/cluster.md): the jobs
# results/svor_benchmark_papers_sizes/benchmark.parquet lacks, on LAUNCHER=local|ray|slurm, then its report.
LAUNCHER ?= local
papers-sizes: $(STAMP)
	$(BIN)/python experiments/reproduce.py svor_benchmark_papers_sizes --launcher $(LAUNCHER)

# Debian's slurmctld, slurmd and munge (no recommended extras), for the tests' one-node SLURM
# (ordrank.launch.one_node_slurm): installed by root when missing; without root the SLURM test skips on a
# workstation (and fails under CI=true).
cluster-services:
	@if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends slurmctld slurmd munge >/dev/null; \
		else echo "make: slurmctld, slurmd and munge are not installed (root installs them): the SLURM test will not run"; fi; fi

# The batch benchmark: one joblib job per (data set, partition); a killed sweep started again runs only
# the jobs without a finished table. Then the tables are merged and the report and figure rebuilt.
benchmark: $(STAMP)   ## svor_benchmark: 24 ORCA sets (12 x 5, 10 bins; docs/results/svor_benchmark.md)
	$(BIN)/python run.py -m +experiment=svor_benchmark hydra/launcher=joblib
	$(BIN)/python -m ordrank.results collect multirun/svor_benchmark -o results/svor_benchmark/benchmark.parquet
	$(BIN)/python experiments/report_svor_benchmark.py

# Every output under build/quick/ (git-ignored, as reproduce-quick's): never the committed results or figures.
benchmark-quick: $(STAMP)   ## the same code path at CI size (two data sets, two partitions)
	$(BIN)/python run.py -m +experiment=svor_benchmark +quick=svor_benchmark hydra/launcher=joblib
	$(BIN)/python -m ordrank.results collect multirun/svor_benchmark_quick -o build/quick/results/svor_benchmark_quick/benchmark.parquet
	$(BIN)/python experiments/report_svor_benchmark.py --table build/quick/results/svor_benchmark_quick/benchmark.parquet \
		--out build/quick/results/svor_benchmark_quick --figure build/quick/figures/svor_benchmark_quick_scatter.png \
		--cd-figure build/quick/figures/svor_benchmark_quick_cd.png

figures: $(STAMP)   ## reports, figures and docs/results tables from the committed tables (no runs)
	$(BIN)/python experiments/reproduce.py --from-tables

# The suite on every core (pytest-xdist); each expensive shared fixture stays on one worker (tests/conftest.py).
# One file or test: `.venv/bin/python -m pytest tests/test_svor.py` (no -n: a single process).
# The venv and the SLURM services are set up side by side (make -j2), then the suite runs.
XDIST ?= -n auto --dist loadgroup
test:
	@$(MAKE) --no-print-directory -j2 $(STAMP) cluster-services
	$(BIN)/python -m ruff check .
	$(BIN)/python -m pytest $(XDIST)

test-fast: $(STAMP)
	$(BIN)/python -m ruff check .
	$(BIN)/python -m pytest $(XDIST) -m "not slow"

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_prank_synthetic.py
	$(BIN)/python benchmarks/bench_eachmovie.py
	$(BIN)/python benchmarks/bench_svor.py --part fits
	$(BIN)/python benchmarks/bench_predtron.py

# Learning to rank at web scale (MSLR-WEB10K/30K-shaped data, generated): every learner at both shapes, each
# in its own process, timed (about an hour on 2 cores); results/letor_web/ and docs/results/web_scale.md
bench-web: $(STAMP)
	$(BIN)/python benchmarks/bench_web_scale.py --publish
	$(BIN)/python experiments/report_letor_web.py

clean:
	rm -rf outputs multirun build/quick .pytest_cache .hypothesis .venv-latest
