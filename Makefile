PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TRANSLATIONS := grader/web/translations
CATALOGUES := $(wildcard $(TRANSLATIONS)/*/LC_MESSAGES/messages.po)
# Material for MkDocs prints a banner about its successor on every build; the site needs none of it.
export NO_MKDOCS_2_WARNING := 1

.PHONY: install packages test-packages test selfcheck bench run clean messages docs

$(BIN)/python: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(BIN)/python

install: packages $(BIN)/python $(CATALOGUES:.po=.mo)

# The Debian packages (scripts/debian-packages): installed when missing as root, else the command to run.
packages:
	@scripts/debian-packages run

test-packages:
	@scripts/debian-packages test

# The pages' translations are compiled here (git ignores .mo files); a changed .po is recompiled.
%.mo: %.po | $(BIN)/python
	$(BIN)/pybabel compile -i $< -o $@

# After changing page texts: extract them (babel.cfg) and merge them into each language's catalogue.
messages: install
	$(BIN)/pybabel -q extract -F babel.cfg --no-location --sort-output -o $(TRANSLATIONS)/messages.pot .
	$(BIN)/pybabel -q update -i $(TRANSLATIONS)/messages.pot -d $(TRANSLATIONS) --no-fuzzy-matching --ignore-obsolete

# The suite runs in parallel, a worker per core (pytest-xdist; tests/conftest.py says which tests share a worker; a
# third worker starved the sandbox tests that run into a CPU-time limit) and
# prints its 20 slowest tests. With GRADER_TEST_POSTGRES_URL set (CI sets it), the tests that open a
# database (marker `database`) run a second time on PostgreSQL. The documentation site is built
# strictly first (a broken link or a missing page fails), into a directory thrown away after.
TEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=20
# Tests marked `alone` stop a server every worker shares (a PostgreSQL restart): one process, after the rest.
ALONE := $(BIN)/python -m pytest -q -n 0 -m alone
test: test-packages install
	$(BIN)/mypy
	@site=$$(mktemp -d) && $(BIN)/mkdocs build --strict --site-dir "$$site"; status=$$?; rm -rf "$$site"; exit $$status
	$(PYTEST) -m "not alone"
	$(ALONE)
	@if [ -n "$$GRADER_TEST_POSTGRES_URL" ]; then \
	  echo "== again on PostgreSQL, the tests that open a database =="; \
	  GRADER_TEST_DATABASE_URL="$$GRADER_TEST_POSTGRES_URL" $(PYTEST) -m "database and not alone" && \
	  GRADER_TEST_DATABASE_URL="$$GRADER_TEST_POSTGRES_URL" $(ALONE); \
	fi
	$(BIN)/python -m grader selfcheck --seeds 50

# The documentation site (docs/, mkdocs.yml) on http://127.0.0.1:8001/, rebuilt on every change.
docs: install
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8001

run: install
	mkdir -p instance && chmod 700 instance
	$(BIN)/flask --app wsgi db upgrade
	@# A refused file is reported and keeps its stored version; it must not keep the service down.
	@$(BIN)/flask --app wsgi exercises sync || echo "exercises sync refused some files (above); serving the versions stored before"
	@$(BIN)/flask --app wsgi users bootstrap
	@echo "grader is starting on http://$${GRADER_BIND:-127.0.0.1:8000}/"
	$(BIN)/gunicorn -c gunicorn.conf.py wsgi:app

selfcheck: install
	$(BIN)/python -m grader selfcheck --seeds 200

bench: install
	$(BIN)/python benchmarks/check.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
