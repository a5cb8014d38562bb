# Two entry points for a new user (see README.md):
#   make demo   set up .venv with what the demo needs, then compile example kernels end to end
#   make test   set up .venv with the test extra too, then run the whole test suite
# Everything is installed into .venv from pyproject.toml; nothing by hand.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# One stamp per install: the base (the compiler and runtime: all the demo needs) and the test
# extra (lit, pytest, hypothesis, ruff, mypy, Playwright, ...). Each is redone when pyproject.toml changes.
BASE_STAMP := $(VENV)/.phobos-installed-base
TEST_STAMP := $(VENV)/.phobos-installed
PIP    := $(BIN)/python -m pip --quiet --disable-pip-version-check --no-input

.PHONY: setup setup-base demo test lit unit clean

setup: $(TEST_STAMP)

setup-base: $(BASE_STAMP)

$(BIN)/python:
	@echo "== creating $(VENV)"
	@$(PYTHON) -m venv $(VENV)
	@$(PIP) install --upgrade pip

$(BASE_STAMP): pyproject.toml | $(BIN)/python
	@echo "== installing Phobos into $(VENV) (the compiler and the runtime; a few minutes the first time)"
	@$(PIP) install -e .
	@touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	@echo "== installing Phobos and its test extra into $(VENV) (a few minutes the first time)"
	@$(PIP) install -e '.[test]'
	@touch $@ $(BASE_STAMP)

demo: $(BASE_STAMP)
	@PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/demo.sh

test: $(TEST_STAMP)
	@PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/run-tests.sh

lit: $(TEST_STAMP)
	$(BIN)/lit -sv test

unit: $(TEST_STAMP)
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) test/Output .pytest_cache .hypothesis
