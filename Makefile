# Two commands on a fresh machine: `make demo` and `make test`. Each creates .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-quick docs lint typecheck browser lab bench clean

# The first install takes three to four minutes: pip is not told to be quiet, so it names each
# package it collects and, in a terminal, draws a progress bar per download (a log without a
# terminal, as in CI, keeps one line per package).
$(STAMP): pyproject.toml
	@echo "setting up $(VENV): installing footprint-lab and its dev and docs tools (3-4 minutes the first time)"
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install -e '.[dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)
	@echo "$(VENV) is ready"

demo: $(STAMP)
	$(BIN)/footprint-lab demo

lint: $(STAMP)
	$(BIN)/ruff check footprint_lab tests examples bench docs/hooks
	$(BIN)/ruff format --check footprint_lab tests examples bench docs/hooks
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# The browser tests need Debian's chromium: installed here when we can (root with apt),
# otherwise make stops at once with the one command to run.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	  else \
	    echo "make test needs Debian's chromium for its browser tests; run: sudo apt-get install -y chromium" >&2; \
	    exit 1; \
	  fi; }

# The whole suite, as CI runs it: tests/ and notebooks/ (nbval), the browser tests and the
# strict documentation build (tests/docs), on two workers (pytest-xdist): the browser tests and
# the site build take turns on one of them (tests/conftest.py), the rest share both.
test: $(STAMP) lint typecheck browser
	$(BIN)/pytest --nbval-lax -p no:cacheprovider -n 2 --dist loadgroup

# The core suite while you work: tests/ without the notebooks (nbval), the browser tests
# (marker `browser`) and the documentation build (marker `docs`); no ruff, mypy or chromium;
# each property draws about a tenth of its examples (tests/budget.py).
test-quick: $(STAMP)
	FOOTPRINT_LAB_EXAMPLES=quick $(BIN)/pytest tests -m "not browser and not docs" -p no:cacheprovider -q -n 2

# The documentation site, offline, into site/: every notebook executed and rendered, the API
# reference from the docstrings, the recipes. Strict: a broken reference fails the build.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench.run

# JupyterLab refuses to start as root (containers, CI machines) unless told so.
LAB_FLAGS := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root,)

# `make lab ARGS="--no-browser --port 8890"` passes options on to JupyterLab.
lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/ $(LAB_FLAGS) $(ARGS)

clean:
	rm -rf $(VENV) footprint-report.html site .cache
