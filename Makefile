# The two commands of the README:
#   make demo   set up .venv and run the main job
#   make test   set up .venv and run the default test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup test test-slow demo bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# CPU build of torch from local disk first; the pyproject range (torch>=2.2) then installs nothing more.
	$(BIN)/pip install -q torch==2.13.0 || $(BIN)/pip install -q "torch>=2.2"
	$(BIN)/pip install -q -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -m "not slow"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -m slow

demo: $(STAMP)
	$(BIN)/python -m experiments.demo

bench: $(STAMP)
	$(BIN)/python benchmarks/throughput.py

clean:
	rm -rf $(VENV) runs .pytest_cache
