# The two commands in README: `make run` and `make test`. Everything installs into .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install dev run test test-slow test-all lint docs catalogs browser clean

install: $(VENV)/.installed

# The package alone: what `make run` needs before it can serve the first page.
$(VENV)/.package: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed: $(VENV)/.package
	# Compile the kernels now (numba keeps them on disk): the first game then starts at once
	# instead of waiting for them. It says each step (n of 10) as it goes.
	$(BIN)/qarena warm-up
	touch $@

dev: $(VENV)/.dev-installed

$(VENV)/.dev-installed: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[dev,ray,env,docs,deep]'
	# Kaggle's ConnectX client, for the tests only: its own dependencies are heavy and the
	# tests need none of them beyond requests and jsonschema (in the dev extra).
	$(BIN)/python -m pip install --quiet --no-deps 'kaggle-environments==1.33.2'
	touch $@

# The first page does not wait for the kernels: on a fresh install they compile in the
# background (saying each step) while the server already answers; a game started before they
# are done compiles what it needs itself.
run: $(VENV)/.package
	@test -f $(VENV)/.installed || ($(BIN)/qarena warm-up && touch $(VENV)/.installed) &
	$(BIN)/qarena serve

lint: dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The default suite leaves out the checks marked slow (whole-game counts through the Python
# interface, README's examples and the report end to end, Ctrl-C and server-stop timing, real
# servers under attack, schemathesis);
# `make test-slow` runs those, and CI runs both. The default suite runs in two processes
# (pytest-xdist), one per core of the machine it is kept under 8 minutes on; the slow checks
# run in one, as several of them measure time or memory.
test: lint browser
	$(BIN)/python -m pytest -m "not slow" -n 2

test-slow: dev browser
	$(BIN)/python -m pytest -m slow

test-all: lint browser
	$(BIN)/python -m pytest

# The German and Russian catalogs in step with the source (extracted with Babel), and compiled.
catalogs: dev
	$(BIN)/python tools/catalogs.py

# The documentation site (mkdocs.yml) into site/; any warning fails the build. The variable
# silences the Material theme's notice about its future, which is no warning about the site.
docs: dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The browser tests drive the system Chromium (Debian's `chromium`); a browser of Playwright's
# own cannot be downloaded here. Installed when missing and we can (root with apt-get); else
# those tests skip locally, and fail under CI.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing chromium for the browser tests (apt-get)..."; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is missing and cannot be installed here (needs root and apt-get):" \
	      "the browser tests will be skipped (failed under CI)"; \
	  fi; }

clean:
	rm -rf $(VENV) build site *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
