# chainc: `make build` and `make test` set themselves up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: setup build check test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-* && touch $@

setup: $(STAMP)             ## create .venv with chainc and the test tools

build: $(STAMP)             ## check every model, then build them all into exports/
	$(BIN)/chainc check
	$(BIN)/chainc build

check: $(STAMP)
	$(BIN)/chainc check

test: $(STAMP)              ## the whole test suite (the command CI runs)
	$(BIN)/python -m pytest -q
	$(BIN)/ruff check compiler tests

lint: $(STAMP)
	$(BIN)/ruff check compiler tests
	$(BIN)/ruff format --check compiler tests

bench: $(STAMP)             ## wall times of the CLI and the solver
	$(BIN)/python tests/benchmarks/bench_cli.py

clean:
	rm -rf $(VENV) exports/*.json .pytest_cache .hypothesis
