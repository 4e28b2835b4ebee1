# Two entry points for a new user (see README): `make site` and `make test`.
# Both create .venv from the repo alone and install what they need.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: site test test-slow bench

# reinstall when the requirements or the set of packages change (editable installs map packages at install time)
$(STAMP): pyproject.toml $(wildcard */__init__.py)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

site: $(STAMP)
	bash tools/ensure_system_packages.sh || echo "no CJK font installed: figure labels fall back to English"
	@mkdir -p _build
	@# the P2 demo's tables are ~300 columns wide: they go to a file; the log gets its section titles
	$(PY) lessons/prelude/02_memory_coalescing.py --quick > _build/p2-demo.txt
	@echo "P2 demo (--quick): $$(wc -l < _build/p2-demo.txt) lines, full output in _build/p2-demo.txt; sections:"
	@awk 'prev ~ /^=+$$/ && /^  / {print "   " $$0} {prev = $$0}' _build/p2-demo.txt
	$(PY) -m coursebuild

# `make test`: everything but the slow tier (README: what it covers, its CPU time); `make test-slow`: the
# slow tier (the Quarto-rendered site in the browser, where quarto is on PATH; the Gradescope bundle run and nvcc's
# harness compile of the exercises past a few representatives). CI runs both.
test: $(STAMP)
	bash tools/ensure_system_packages.sh || echo "chromium unavailable: browser tests will be skipped"
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

test-slow: $(STAMP)
	bash tools/ensure_system_packages.sh || echo "chromium unavailable: browser tests will be skipped"
	$(PY) -m pytest -m slow $(PYTEST_ARGS)

# the optional bench extra (numba) for the side-by-side with Numba's simulator; without it that row is skipped
$(VENV)/.bench-stamp: $(STAMP)
	$(PY) -m pip install -q -e '.[bench]' || echo "numba unavailable: the Numba comparison will be skipped"
	touch $@

# BENCH_ARGS: e.g. "--quick" or "--only gemm,numba" (tools/bench.py --help)
bench: $(VENV)/.bench-stamp
	$(PY) tools/bench.py $(BENCH_ARGS)
