PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TRANSLATIONS := grader/web/translations
CATALOGUES := $(wildcard $(TRANSLATIONS)/*/LC_MESSAGES/messages.po)

.PHONY: install test selfcheck bench run clean messages

$(BIN)/python: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(BIN)/python

install: $(BIN)/python $(CATALOGUES:.po=.mo)

# The pages' translations are compiled here (git ignores .mo files); a changed .po is recompiled.
%.mo: %.po | $(BIN)/python
	$(BIN)/pybabel compile -i $< -o $@

# After changing page texts: extract them (babel.cfg) and merge them into each language's catalogue.
messages: install
	$(BIN)/pybabel -q extract -F babel.cfg --no-location --sort-output -o $(TRANSLATIONS)/messages.pot .
	$(BIN)/pybabel -q update -i $(TRANSLATIONS)/messages.pot -d $(TRANSLATIONS) --no-fuzzy-matching --ignore-obsolete

# With GRADER_TEST_POSTGRES_URL set (CI sets it), the whole suite runs a second time on PostgreSQL.
test: install
	$(BIN)/mypy
	$(BIN)/python -m pytest -q
	@if [ -n "$$GRADER_TEST_POSTGRES_URL" ]; then \
	  echo "== again on PostgreSQL =="; \
	  GRADER_TEST_DATABASE_URL="$$GRADER_TEST_POSTGRES_URL" $(BIN)/python -m pytest -q; \
	fi
	$(BIN)/python -m grader selfcheck --seeds 50

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
