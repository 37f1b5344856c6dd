# Every target creates or reuses the virtual environment in $(VENV) and installs what it needs.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
# A CPU build where the machine has one on disk; pin it first so nothing pulls a CUDA build.
TORCH ?= torch==2.13.0

.PHONY: demo test lint bench clean

$(VENV)/.installed: pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

$(VENV)/.bench-installed: $(VENV)/.installed
	$(PY) -m pip install --quiet -e ".[dev,bench]"
	touch $@

demo: $(VENV)/.installed  ## play a seeded random game of each game
	$(PY) -m mancala_envs.demo

test: $(VENV)/.installed  ## lint, then the whole test suite
	$(PY) -m ruff check .
	$(PY) -m pytest -q -n 2

lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

bench: $(VENV)/.bench-installed  ## speed against OpenSpiel and PettingZoo (run on demand)
	$(PY) benchmarks/bench_core.py
	$(PY) benchmarks/bench_envs.py
	$(PY) benchmarks/bench_agents.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
