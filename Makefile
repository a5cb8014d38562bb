# Two entry points for a new user (see README.md):
#   make demo   set up .venv if needed, then compile an example kernel end to end
#   make test   set up .venv if needed, then run the whole test suite
# Everything is installed into .venv from pyproject.toml; nothing by hand.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.phobos-installed

.PHONY: setup demo test lit unit clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

demo: $(STAMP)
	@PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/demo.sh

test: $(STAMP)
	@PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/run-tests.sh

lit: $(STAMP)
	$(BIN)/lit -sv test

unit: $(STAMP)
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) test/Output .pytest_cache .hypothesis
