# Two commands matter: `make site` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# Reproducible output: dates in the site come from the last commit, not the clock.
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 1700000000)

.PHONY: install site test check lint serve verify verify-compile book clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)         ## create .venv and install the package with its test extras

site: $(STAMP)            ## build the whole site into site/
	$(BIN)/glossary build

test: $(STAMP)            ## lint, check the glossary, run the test suite
	$(BIN)/ruff check glossary_tool tests benchmarks
	$(BIN)/glossary check
	@# Bytecode caches on, whatever the shell says: with PYTHONDONTWRITEBYTECODE set, every
	@# xdist worker rewrites and compiles every test module again (about 4 s of CPU each) and
	@# every `glossary` subprocess compiles the package again. `--dist loadgroup` with `-n auto`:
	@# the browser tests on a worker of their own, a worker per core for the rest (tests/conftest.py).
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto --dist loadgroup

check: $(STAMP)
	$(BIN)/glossary check

serve: $(STAMP)
	$(BIN)/glossary serve

book: $(STAMP)            ## the site plus dist/gpu-glossary.epub and .pdf
	$(BIN)/glossary build --book

verify: $(STAMP)          ## on a GPU machine: run every snippet, update snippets/
	$(BIN)/glossary verify

verify-compile: $(STAMP)  ## without a GPU: compile every snippet (records untouched)
	$(BIN)/glossary verify --compile-only --records $$(mktemp -d)

clean:
	rm -rf site dist $(VENV)
