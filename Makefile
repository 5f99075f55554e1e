# chainc: `make build` and `make test` set themselves up on a fresh machine (Python 3.11+).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HASH   := $(shell cat pyproject.toml setup.py | cksum | cut -d' ' -f1)
BASE   := $(VENV)/.base-$(HASH)
TOOLS  := $(VENV)/.test-$(HASH)
# The requirements of pyproject.toml (plus an extra's): installed first, with pip's progress shown.
REQS    = $(BIN)/python -c 'import sys, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print("\n".join(p["dependencies"] + [r for x in sys.argv[1:] for r in p["optional-dependencies"][x]]))'

.PHONY: setup build check test lint bench docs golden clean

$(BASE): pyproject.toml setup.py
	@echo "==> $(VENV): chainc and what building needs (the first time takes a minute or two)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@$(REQS) > $(VENV)/requirements.txt
	$(BIN)/python -m pip install --progress-bar on -r $(VENV)/requirements.txt
	@# setuptools reports its editable-install strategy on stderr: kept in a log, shown if the install fails
	$(BIN)/python -m pip install --quiet --no-deps -e . 2> $(VENV)/install.log || { cat $(VENV)/install.log; exit 1; }
	rm -f $(VENV)/.base-* && touch $@

$(TOOLS): $(BASE)
	@echo "==> $(VENV): the test tools"
	@$(REQS) test > $(VENV)/requirements-test.txt
	$(BIN)/python -m pip install --progress-bar on -r $(VENV)/requirements-test.txt
	rm -f $(VENV)/.test-* && touch $@

setup: $(TOOLS)             ## create .venv with chainc and the test tools

build: $(BASE)              ## check every model, then build them all into exports/
	$(BIN)/chainc check
	$(BIN)/chainc build

check: $(BASE)
	$(BIN)/chainc check

test: $(TOOLS)              ## the whole test suite (the command CI runs)
	$(BIN)/python -m pytest -q
	$(BIN)/ruff check compiler tests setup.py
	$(BIN)/ruff format --check compiler tests setup.py

lint: $(TOOLS)
	$(BIN)/ruff check compiler tests setup.py
	$(BIN)/ruff format --check compiler tests setup.py

# make bench BENCH_ARGS="--baseline ../baseline --quick": see tests/benchmarks/bench.py
BENCH_ARGS ?=
bench: $(TOOLS)             ## issue 11's targets, measured in one run (side by side with a baseline checkout if given)
	$(BIN)/python tests/benchmarks/bench.py $(BENCH_ARGS)

docs: $(TOOLS)              ## rewrite the output shown in README.md and docs/ where it no longer reads as it prints (review the diff)
	$(BIN)/python tests/docs_update.py

golden: $(TOOLS)            ## rewrite the golden files of tests/golden/ from what the backends print now
	$(BIN)/python tests/golden/update.py

clean:
	rm -rf $(VENV) exports/*.json .pytest_cache .hypothesis build dist
