# One entry point per job. Every target sets itself up from a fresh clone:
# the virtualenv is (re)built whenever pyproject.toml changes.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PNP := $(BIN)/pnp

.PHONY: print test check bench fuzz setup clean

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

# 2 x 1,000 hypothesis examples against the loader and the checker; prints the count.
fuzz: $(STAMP)
	PNP_FUZZ_EXAMPLES=1000 $(BIN)/pytest -q -s -p no:logging tests/test_fuzz.py

bench: $(STAMP)
	$(BIN)/python tests/bench/bench_rulebook.py
	$(BIN)/python tests/bench/bench_print.py

clean:
	rm -rf output
