# Two entry points for a fresh clone (see README): `make run` and `make test`.
# Each installs only what is missing: the Python env (.venv) and the Node packages (npm ci).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.package-lock.json

.PHONY: run test setup check-node

run: setup
	$(VENV)/bin/blockpact run double_vein

test: setup
	$(PY) -m pytest
	node --test tests/js/

setup: $(PY_STAMP) $(NODE_STAMP)

$(PY_STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "blockpact needs Python >= 3.11 (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

$(NODE_STAMP): package.json package-lock.json | check-node
	npm ci --no-audit --no-fund --loglevel=error

check-node:
	@command -v node >/dev/null || { echo "blockpact needs Node.js >= 20: apt-get install nodejs npm"; exit 1; }
	@node -e 'process.exit(Number(process.versions.node.split(".")[0]) < 20 ? 1 : 0)' || { echo "blockpact needs Node.js >= 20 (found $$(node --version))"; exit 1; }
