# The two commands of the README:
#   make quickstart   set up .venv and run the main job (short PPO run + tournament + TensorBoard logs)
#   make test         set up .venv and run the default test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup test test-slow test-ray test-integrations quickstart bench bench-bots bench-collect docs clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# CPU build of torch from local disk first; the pyproject range (torch>=2.2) then installs nothing more.
	$(BIN)/pip install -q torch==2.13.0 || $(BIN)/pip install -q "torch>=2.2"
	$(BIN)/pip install -q -e ".[dev,fast,plot,play,play-test,sb3,docs]"
	# compile the engine's kernels once (numba caches them on disk): the first quickstart need not
	$(BIN)/hollywood evaluate marjj simple --matches 2 --quiet > /dev/null
	touch $(STAMP)

setup: $(STAMP)

test: $(STAMP)
	@$(BIN)/python tests/cli/browser_check.py || true
	$(BIN)/python -m pytest -q -n 2 -m "not slow and not ray and not integrations"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -m slow

test-ray: $(STAMP)
	$(BIN)/pip install -q -e ".[ray,rllib]" && $(BIN)/python -m pytest -q -m ray

test-integrations: $(STAMP)
	$(BIN)/pip install -q -e ".[torchrl,tianshou]" && $(BIN)/python -m pytest -q -m integrations

quickstart: $(STAMP)
	$(BIN)/hollywood quickstart

bench: $(STAMP)
	$(BIN)/pip install -q -e ".[bench]"
	$(BIN)/python benchmarks/throughput.py
	$(BIN)/python benchmarks/env_throughput.py
	$(BIN)/python benchmarks/sb3_throughput.py

bench-bots: $(STAMP)
	$(BIN)/python benchmarks/bots_throughput.py

bench-collect: $(STAMP)
	$(BIN)/python benchmarks/collect_throughput.py

# the documentation site (mkdocs.yml, docs/) into site/; `$(BIN)/mkdocs serve` to preview
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -d site

clean:
	rm -rf $(VENV) runs .pytest_cache site
