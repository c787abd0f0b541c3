# One entry point per job. Every target sets itself up from a fresh clone:
# the virtualenv is (re)built whenever pyproject.toml changes.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PNP := $(BIN)/pnp

.PHONY: print test check bench setup clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# check first: errors stop the build before any file is written.
print: $(STAMP)
	$(PNP) print

check: $(STAMP)
	$(PNP) check

test: $(STAMP)
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python tests/bench/bench_print.py

clean:
	rm -rf output
