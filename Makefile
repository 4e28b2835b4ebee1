# Two entry points for a new user (see README): `make site` and `make test`.
# Both create .venv from the repo alone and install what they need.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: site test bench

# reinstall when the requirements or the set of packages change (editable installs map packages at install time)
$(STAMP): pyproject.toml $(wildcard */__init__.py)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

site: $(STAMP)
	bash tools/ensure_system_packages.sh || echo "no CJK font installed: figure labels fall back to English"
	$(PY) lessons/prelude/02_memory_coalescing.py --quick
	$(PY) -m coursebuild

test: $(STAMP)
	bash tools/ensure_system_packages.sh || echo "chromium unavailable: browser tests will be skipped"
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) tools/bench.py
