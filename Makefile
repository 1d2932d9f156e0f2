# `make demo` and `make test` work on a fresh clone: both create .venv and install arena first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: install
	$(BIN)/arena tournament configs/quickstart.toml

test: install
	$(BIN)/ruff check arena bots tests benchmarks
	$(BIN)/pytest

bench: install
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
