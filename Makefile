# One entry point per job. Every target sets itself up from a fresh clone: the virtualenv is
# (re)built when pyproject.toml changes, when it was made by another interpreter, or when a
# failed attempt left it broken.
#
# PY: any Python 3.11 or newer. Unset, the first suitable of python3, python3.13, python3.12,
# python3.11 on PATH is used.
PY ?= $(shell for p in python3 python3.13 python3.12 python3.11; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { command -v $$p; break; }; \
	done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PNP := $(BIN)/pnp

.PHONY: print test test-all check bench fuzz lint setup clean

# The stamp holds the interpreter and a hash of what pip installs from pyproject.toml (build
# system, dependencies, scripts): editing tool settings (ruff, mypy, pytest) keeps the venv.
DEPS_HASH = import hashlib, json, tomllib; p = tomllib.load(open("pyproject.toml", "rb")); \
	keys = (p.get("build-system"), p["project"].get("dependencies"), \
	p["project"].get("optional-dependencies"), p["project"].get("scripts")); \
	print(hashlib.sha256(json.dumps(keys, sort_keys=True).encode()).hexdigest()[:16])
setup:
	@test -n "$(PY)" || { echo "make: no Python 3.11 or newer found; set PY=/path/to/python3.x" >&2; exit 2; }
	@want="$$($(PY) -c 'import sys; assert sys.version_info >= (3, 11); print(sys.version.split()[0], sys.base_prefix)' 2>/dev/null)" \
	  || { echo "make: PY=$(PY) is not a Python 3.11 or newer" >&2; exit 2; }; \
	want="$$want $$($(PY) -c '$(DEPS_HASH)')"; \
	if [ -x $(BIN)/python ] && [ "$$(cat $(STAMP) 2>/dev/null)" = "$$want" ] && $(BIN)/python -c 'import generator' 2>/dev/null; then \
	  exit 0; fi; \
	echo "make: building $(VENV) with $(PY) (Python $${want%% *})"; \
	rm -rf $(VENV); \
	$(PY) -m venv $(VENV) && $(BIN)/pip install --quiet --upgrade pip \
	  && $(BIN)/pip install --quiet -e '.[dev]' && echo "$$want" > $(STAMP) \
	  || { rm -rf $(VENV); echo "make: setting up $(VENV) failed" >&2; exit 1; }
	@# Bytecode for pnp's own modules (an editable install has none; PYTHONDONTWRITEBYTECODE
	@# would keep Python from writing it): every pnp command then starts without compiling.
	@$(BIN)/python -m compileall -q generator >/dev/null

# check first: errors stop the build before any file is written. GAME=<id> builds one game.
GAME ?=
print: setup
	$(PNP) print $(GAME)

check: setup
	$(PNP) check

# `make test` leaves out the tests marked slow (see tests/conftest.py) and runs on two
# processes, each taking the next test when it is free (loadgroup); the tests that read one
# shared build (shared_build in tests/conftest.py) are a group that runs on one process, so
# neither waits, idle, for a build the other is making. CI runs them all (docs/architecture.md,
# "Tests, lint and CI").
# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: otherwise each test process
# rewrites and compiles every test module again (about 1.5 s each).
test: setup
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -q -m "not slow" -n 2 --dist loadgroup --cpu-durations=10

test-all: setup
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -q

lint: setup
	$(BIN)/ruff format --check generator tests
	$(BIN)/ruff check generator tests
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python tests/tools/deferred_imports.py --check

# 3 x 700 hypothesis examples (files as text, values anywhere, rulebooks as text) against the
# loader and the checker, each with a hang limit; prints the count.
fuzz: setup
	PNP_FUZZ_EXAMPLES=700 $(BIN)/pytest -q -s -p no:logging tests/test_fuzz.py

bench: setup
	$(BIN)/python tests/bench/bench_rulebook.py
	$(BIN)/python tests/bench/bench_print.py
	$(BIN)/python tests/bench/bench_png.py
	$(BIN)/python tests/bench/bench_loop.py

clean:
	rm -rf output
