# Every target creates or reuses the virtual environment in $(VENV) and installs what it needs.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
# A CPU build where the machine has one on disk; pin it first so nothing pulls a CUDA build.
TORCH ?= torch==2.13.0
# Optional extras to install with the project: CI adds rllib (make test EXTRAS=dev,rllib).
EXTRAS ?= dev
comma := ,
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

.PHONY: train demo test lint bench notebooks docs results architecture datasets screenshots clean

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $@

$(VENV)/.bench-installed: $(STAMP)
	$(PY) -m pip install --quiet -e ".[$(EXTRAS),bench]"
	touch $@

train: $(STAMP)  ## the main job: train MaskablePPO on Songo Ewondo (about 10 min on 2 cores), evaluate it
	$(PY) -m mancala_envs.training.train_ppo $(ARGS)

demo: $(STAMP)  ## play a seeded random game of each game
	$(PY) -m mancala_envs.demo

test: $(STAMP)  ## lint, then the whole test suite
	$(PY) -m ruff check .
	$(PY) -m pytest -q -n 2

notebooks: $(STAMP)  ## run every notebook in full and keep its outputs in the file (NB=01_... for one)
	cd notebooks && for nb in $(or $(NB),*.ipynb); do \
		../$(PY) -m jupyter execute --inplace --timeout=-1 "$$nb" || exit 1; done

docs: $(STAMP)  ## the documentation site, warnings as errors, into docs/_build/html (needs the docs extra, in dev)
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

screenshots: $(STAMP)  ## the web app's pictures in docs/images/web (docs/play-and-analyse.md), taken by its browser tests
	MANCALA_SCREENSHOTS=docs/images/web $(PY) -m pytest -q tests/web/test_web_browser.py

results: $(STAMP)  ## render docs/results/*.md, their figures and the README's headline table from the result files in results/
	$(PY) docs/render_results.py

architecture: $(STAMP)  ## redraw docs/architecture.md's layer diagram from pyproject's contracts and the import graph
	$(PY) docs/render_architecture.py

# greedy against minimax:depth=2 over 16 opening pairs, exact values from 10-seed tables (built in the tablebase cache)
DATASETS := docs/examples/datasets
DATASET_ARGS := --learner greedy --opponent minimax:depth=2 --openings 16 --seed 0 --max-seeds 10 --out $(DATASETS) --no-progress

datasets: $(STAMP)  ## the example Minari datasets in docs/examples/datasets (docs/datasets.md), rewritten
	rm -rf $(DATASETS)
	$(VENV)/bin/mancala dataset --game songo_ewondo $(DATASET_ARGS) --dataset-id mancala/songo_ewondo/greedy-vs-minimax2-v0
	$(VENV)/bin/mancala dataset --game sadeqa_ii $(DATASET_ARGS) --dataset-id mancala/sadeqa_ii/greedy-vs-minimax2-v0
	$(VENV)/bin/mancala dataset --game en_dodoi --holes-per-row 8 $(DATASET_ARGS) --dataset-id mancala/en_dodoi_8/greedy-vs-minimax2-v0

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

bench: $(VENV)/.bench-installed  ## speed against OpenSpiel and PettingZoo (run on demand)
	$(PY) benchmarks/bench_core.py
	$(PY) benchmarks/bench_envs.py
	$(PY) benchmarks/bench_agents.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
