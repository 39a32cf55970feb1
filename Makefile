# Two commands do everything on a fresh clone (Python 3.11 + pip):
#   make run    set up .venv, run the main job, publish its table to results/ and redraw figures/
#   make test   set up .venv and run the whole test suite (slow reproduction checks included)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
export ORDRANK_DATA ?= $(abspath ../shared/data)

.PHONY: setup run reproduce test test-fast figures bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-* && touch $@

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/python run.py +experiment=prank_synthetic publish=true
	$(BIN)/python experiments/plot_figure4.py

reproduce: $(STAMP)   ## every experiment of the PRank paper's Figure 4, then its figures
	$(BIN)/python run.py +experiment=prank_synthetic publish=true
	$(BIN)/python run.py +experiment=prank_eachmovie100 publish=true
	$(BIN)/python run.py +experiment=prank_eachmovie200 publish=true
	$(BIN)/python run.py +experiment=prank_eachmovie100 dataset=movielens_100k publish=true
	$(BIN)/python run.py +experiment=prank_eachmovie200 dataset=movielens_100k publish=true
	$(BIN)/python experiments/plot_figure4.py

figures: $(STAMP)
	$(BIN)/python experiments/plot_figure4.py

test: $(STAMP)
	$(BIN)/python -m pytest

test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_prank_synthetic.py
	$(BIN)/python benchmarks/bench_eachmovie.py

clean:
	rm -rf outputs multirun .pytest_cache .hypothesis
