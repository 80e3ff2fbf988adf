PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install test selfcheck bench clean

$(BIN)/python: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(BIN)/python

install: $(BIN)/python

test: install
	$(BIN)/python -m pytest -q
	$(BIN)/python -m grader selfcheck --seeds 50

selfcheck: install
	$(BIN)/python -m grader selfcheck --seeds 200

bench: install
	$(BIN)/python benchmarks/check.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
