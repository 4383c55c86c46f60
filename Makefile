# EvalSite: `make demo` sets up and serves the demo; `make test` runs the whole suite.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
HOST ?= 127.0.0.1
PORT ?= 8000
export DEBUG ?= 1

.PHONY: demo serve worker check test lint typecheck pytest chromium messages clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(DEV_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP) $@

demo: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	@echo "Serving on http://$(HOST):$(PORT)/ with one job worker (Ctrl-C stops both)"
	@$(PY) manage.py job_worker --verbosity 0 & worker=$$!; \
	trap 'kill -INT $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT; \
	$(VENV)/bin/daphne -b $(HOST) -p $(PORT) evalsite.asgi:application

serve: $(STAMP)
	$(VENV)/bin/daphne -b $(HOST) -p $(PORT) evalsite.asgi:application

# One more worker for background jobs; start as many as you like, on any machine.
worker: $(STAMP)
	$(PY) manage.py job_worker

chromium:
	@test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq chromium)

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(DEV_STAMP)
	$(VENV)/bin/mypy .

# Both tiers run in a random order (pytest-randomly prints its seed; --randomly-seed=N repeats
# an order) on two pytest-xdist workers, each file on one worker so that a module's fixtures are
# built once. The whole suite measures branch coverage of the served code and prints the total.
PYTEST_WORKERS ?= 2
PYTEST_FULL = -n $(PYTEST_WORKERS) --dist loadfile --cov --cov-branch --cov-report=
COVERAGE_TOTAL = echo "Branch coverage of the served code: $$($(VENV)/bin/coverage report --format=total)%"

pytest: $(DEV_STAMP) chromium
	$(VENV)/bin/pytest $(PYTEST_FULL) $(PYTEST_ARGS)
	@$(COVERAGE_TOTAL)

# The fast tier while you work: lint, types and every test not marked slow (tests/conftest.py
# says which are), in random order.
check: lint
	@echo "$(VENV)/bin/mypy . (alongside pytest)"; \
	mypy_log=$$(mktemp); \
	nice -n 10 $(VENV)/bin/mypy . > $$mypy_log 2>&1 & mypy_pid=$$!; \
	echo "$(VENV)/bin/pytest -m 'not slow' $(PYTEST_ARGS)"; \
	$(VENV)/bin/pytest -m "not slow" -n $(PYTEST_WORKERS) $(PYTEST_ARGS); pytest_status=$$?; \
	wait $$mypy_pid; mypy_status=$$?; \
	echo "$(VENV)/bin/mypy ."; cat $$mypy_log; rm -f $$mypy_log; \
	exit $$(( pytest_status || mypy_status ))

# mypy runs on the other core while pytest runs (niced, so that the tests keep theirs); its
# report follows pytest's, and either failing fails the target.
test: lint chromium
	@echo "$(VENV)/bin/mypy . (alongside pytest)"; \
	mypy_log=$$(mktemp); \
	nice -n 10 $(VENV)/bin/mypy . > $$mypy_log 2>&1 & mypy_pid=$$!; \
	echo "$(VENV)/bin/pytest $(PYTEST_FULL) $(PYTEST_ARGS)"; \
	$(VENV)/bin/pytest $(PYTEST_FULL) $(PYTEST_ARGS); pytest_status=$$?; \
	$(COVERAGE_TOTAL); \
	wait $$mypy_pid; mypy_status=$$?; \
	echo "$(VENV)/bin/mypy ."; cat $$mypy_log; rm -f $$mypy_log; \
	exit $$(( pytest_status || mypy_status ))

messages: $(DEV_STAMP)
	$(PY) manage.py makemessages -l zh_Hans --ignore '.venv/*' --ignore 'tests/*' --ignore 'bench/*' --ignore 'examples/*'
	$(PY) manage.py compilemessages -l zh_Hans --ignore '.venv/*'

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-* staticfiles
