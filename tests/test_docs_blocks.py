"""Every command and code block of the documentation runs (README.md and docs/*.md; tests/docs_blocks.py says
how a block is read, and how a block opts out with a reason).

The blocks of a page run in order in one working directory, as a reader typing them would: a world file a
page writes is there for the commands after it. The directory links the checkout's files a reader has
(`examples/`, `tests/`, the Makefile and its installed `.venv`), so `make run` and `blockpact sweep
examples/...` run as written, and whatever a block writes (runs/, worlds) stays in the test's directory.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from docs_blocks import Block, DocsError, blocks, pages
from harness.pace import scaled

ROOT = Path(__file__).resolve().parents[1]
LINKED = [".venv", "node_modules", "Makefile", "pyproject.toml", "requirements.lock", "package.json",
          "package-lock.json", "constraints-llm.txt", "blockpact", "tests", "tests_llm", "examples", "bench"]
PAGES = pages(ROOT)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    for name in LINKED:
        if (ROOT / name).exists():
            (work / name).symlink_to(ROOT / name)
    return work


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # the LLM response cache of these runs is theirs alone
    env["COLUMNS"] = "120"
    env.pop("OPENAI_API_KEY", None)
    return env


def _stop_group(process: subprocess.Popen) -> None:
    """What a block left running in the background (`server &`) is stopped with it."""
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


def _run(block: Block, text: str, work: Path, env: dict[str, str], n: int) -> None:
    if block.lang == "python":
        script = work / f"block_{n}.py"
        script.write_text(text)
        argv = [sys.executable, script.name]
    else:
        argv = ["bash", "-e", "-o", "pipefail", "-c", text]
    log = work.parent / f"block_{n}.log"  # a file, not a pipe: what a block leaves running cannot hold it open
    with log.open("w") as out:
        process = subprocess.Popen(argv, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
        try:
            process.wait(timeout=scaled(block.timeout))
        except subprocess.TimeoutExpired:
            _stop_group(process)
            process.wait()
            pytest.fail(f"{block.where}: still running after {scaled(block.timeout):.0f} s\n{text}\n--- output:\n"
                        f"{log.read_text()[-4000:]}")
        finally:
            _stop_group(process)
    if process.returncode != block.exit:
        pytest.fail(f"{block.where}: exit status {process.returncode} (expected {block.exit})\n{text}\n"
                    f"--- output:\n{log.read_text()[-6000:]}")


def _play(page: Path, tmp_path: Path, slow: bool) -> list[str]:
    """Runs the page's blocks in order; returns what was skipped, and why."""
    work, env, port = _workdir(tmp_path), _env(tmp_path), str(_free_port())
    skipped = []
    for n, block in enumerate(blocks(page)):
        text = block.text
        for old, new in block.replace:
            assert old in text, f"{block.where}: `test: replace {old} => ...`, but the block has no {old!r}"
            text = text.replace(old, new.replace("{free_port}", port))
        if block.lang == "toml":
            try:
                tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                pytest.fail(f"{block.where}: not valid TOML: {exc}")
        if block.skip or (block.slow and not slow):
            skipped.append(f"{block.where}: {block.skip or 'slow (run with --run-slow)'}")
            continue
        if block.file:
            (work / block.file).parent.mkdir(parents=True, exist_ok=True)
            (work / block.file).write_text(text)
        elif block.runs:
            _run(block, text, work, env, n)
    return skipped


def _has_slow(page: Path) -> bool:
    try:
        return any(b.slow and not b.skip for b in blocks(page))
    except DocsError:
        return False  # the page's own test says what is wrong with it


CASES = [pytest.param(p, False, id=p.name) for p in PAGES] + [
    pytest.param(p, True, id=f"{p.name}-with-slow", marks=pytest.mark.slow) for p in PAGES if _has_slow(p)]


@pytest.mark.timeout(3600)  # a page's blocks in a row (each bounded by its own timeout), on a busy machine
@pytest.mark.parametrize("page, slow", CASES)
def test_page_blocks_run(page: Path, slow: bool, tmp_path: Path) -> None:
    skipped = _play(page, tmp_path, slow)
    for line in skipped:
        print("skipped", line)


def test_opt_outs_are_few_and_say_why() -> None:
    """Skips are for what cannot run here (a server of one's own, the suite itself): few, each with its reason."""
    all_blocks = [b for p in PAGES for b in blocks(p)]
    runnable = [b for b in all_blocks if b.lang in ("sh", "bash", "shell", "python")]
    skipped = [b for b in runnable if b.skip]
    assert all(len(b.skip or "") >= 15 for b in skipped), [b.where for b in skipped if len(b.skip or "") < 15]
    assert len(skipped) <= max(3, len(runnable) // 6), [f"{b.where}: {b.skip}" for b in skipped]
