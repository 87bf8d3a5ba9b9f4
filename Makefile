# Two entry points for a fresh clone (see README): `make run` and `make test`.
# Each installs only what is missing: the Python env (.venv) and the Node packages (npm ci).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.package-lock.json

.PHONY: run test setup check-node mqtt-broker

run: setup
	$(VENV)/bin/blockpact run double_vein

test: setup mqtt-broker
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

# The message pool tests want mosquitto (Debian). Installed quietly when missing and apt-get can
# (root); otherwise they use amqtt, a pip dependency, and skip what needs mosquitto's persistence.
mqtt-broker:
	@command -v mosquitto >/dev/null || test -x /usr/sbin/mosquitto || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null 2>&1 || \
	    { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null 2>&1; }; }; } || \
	echo "mosquitto not installed (apt-get unavailable or failed): pool tests use amqtt"

check-node:
	@command -v node >/dev/null || { echo "blockpact needs Node.js >= 20: apt-get install nodejs npm"; exit 1; }
	@node -e 'process.exit(Number(process.versions.node.split(".")[0]) < 20 ? 1 : 0)' || { echo "blockpact needs Node.js >= 20 (found $$(node --version))"; exit 1; }
