"""Import JSPyBridge (`javascript`) with its Node child's output made quiet and plain.

Left alone, JSPyBridge (1.2) hands Node the terminal's stdout, or, whenever `sys.stdout` is not the
process's own (pytest's capture, a redirect), copies Node's stdout with `print` in a loop that prints an
empty line for every read after Node closed it: hundreds of blank lines per run. It also prints Node's
non-protocol stderr lines as `[JSE] line` on stdout with an extra newline, and sets FORCE_COLOR for the
Node child. Importing it through `import_bridge()` instead pipes Node's stdout always, copies each
non-empty line of it, and of its stray stderr, to our stderr as `node: line` without colour codes, stops
at end of file, and starts Node with FORCE_COLOR=0. The caller's own FORCE_COLOR is left as it was
(rich reads it).

Its proxy's "Node process has crashed" notice after a request that timed out is dropped: the exception
that follows is what blockpact reports, with its cause.

One more change: JSPyBridge gives every attribute access on a JS object (`world.drainJournal` before the
call) a hard-coded 10 s for Node to answer, and a request that times out can wedge the bridge. On a
machine whose cores are shared by many processes, Node's main thread (path searches, a server's
packets) can be that late without anything being wrong (seen at load 10 on 2 cores: `Timed out get
drainJournal`, then a hung episode). Requests that wait JSPyBridge's default wait `MIN_REQUEST_SECONDS`
instead; a call given its own bound (blockpact's bounded calls and liveness pings, which tell a wedged
runtime from a slow one) keeps it, so its bound must differ from JSPyBridge's 10 s default. That holds for
both waits of a call that passes a Python object (a callback): Node first names the object, then answers
the call; the first wait was left at 10 s and was what failed a 64-bot runtime with `Execution timed out`.

A method's proxy keeps the proxy of its object alive. JSPyBridge's proxy of `f` in `obj.f` holds only the id
of `obj` in Node; once `obj`'s Python proxy is dropped (`node.require(m).f(x)` drops it before the call), its
id is queued to be freed, and when 40 are queued the next request frees them, so the call found `obj` gone:
"Cannot read properties of undefined" (seen after 7 simulated episodes in a process, making acorn's extractor).

And an answer that comes after its caller gave up no longer kills the bridge: JSPyBridge's reader thread
hands every answer over through a `threading.Barrier(2, timeout=5)` that the caller must also reach; a
caller that timed out never does, the barrier breaks, and the exception ended the reader thread, so every
later request of that runtime went unanswered (a wedge, seen closing a shard of 32 bots). Here a broken
barrier costs the reader those 5 s and nothing else.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
import threading
from types import ModuleType
from typing import Any

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
MIN_REQUEST_SECONDS = 120.0
JSPYBRIDGE_DEFAULT_SECONDS = 10.0  # what JSPyBridge waits for a `get` and for a call given no timeout
PREFIX = "node: "
_write_lock = threading.Lock()


def node_line(*parts: Any, **_print_options: Any) -> None:
    """Stands in for `print` inside JSPyBridge's connection module: non-empty lines to stderr, plain."""
    text = " ".join(str(p) for p in parts).removeprefix("[JSE] ")
    lines = [ANSI.sub("", line).rstrip() for line in text.splitlines()]
    lines = [line for line in lines if line.strip()]
    if not lines:
        return
    with _write_lock:
        stream = sys.stderr
        for line in lines:
            stream.write(f"{PREFIX}{line}\n")
        stream.flush()


def _copy_node_stdout(connection: ModuleType) -> Any:
    def copy() -> None:
        proc = connection.proc
        if proc is None or proc.stdout is None:
            return
        for raw in iter(proc.stdout.readline, b""):
            node_line(raw.decode("utf-8", errors="replace"))

    return copy


def _proxy_print(*parts: Any, **_print_options: Any) -> None:
    """Stands in for `print` inside JSPyBridge's proxy module. A request that timed out makes it print
    "** The Node process has crashed ... **" (often when Node is merely slow, or at exit) and "Timed out ...";
    the exception it raises next is what blockpact reports (BridgeBroken, with the cause), so those are dropped."""
    text = " ".join(str(p) for p in parts)
    if "The Node process has crashed" in text or text.startswith("Timed out"):
        return
    node_line(text)


class _PatientRequest:
    """The event a JSPyBridge request waits on, waiting at least MIN_REQUEST_SECONDS."""

    def __init__(self, event: threading.Event) -> None:
        self._event = event

    def wait(self, timeout: float | None = None) -> bool:
        if timeout is None or float(timeout) == JSPYBRIDGE_DEFAULT_SECONDS:
            timeout = MIN_REQUEST_SECONDS  # JSPyBridge's own default: patience
        return self._event.wait(timeout)  # a caller's own bound (a liveness ping, a bounded call) is kept

    def __getattr__(self, name: str) -> Any:
        return getattr(self._event, name)


def _patient(register: Any) -> Any:
    """EventLoop.queue_request or .await_response, its event made patient."""
    def patient(self: Any, *args: Any, **kwargs: Any) -> _PatientRequest:
        return _PatientRequest(register(self, *args, **kwargs))

    return patient


class _ForgivingBarrier(threading.Barrier):
    """JSPyBridge's hand-over of one answer; a party that waited in vain goes on instead of raising."""

    def wait(self, timeout: float | None = None) -> int:
        try:
            return super().wait(timeout)
        except threading.BrokenBarrierError:
            return -1


def _threading_with_forgiving_barrier() -> ModuleType:
    """The `threading` module as JSPyBridge's event loop and proxy see it: the same, but for Barrier."""
    module = ModuleType("threading")
    module.__dict__.update(threading.__dict__)
    module.Barrier = _ForgivingBarrier  # type: ignore[attr-defined]
    return module


def _keeping_its_object(call: Any) -> Any:
    """Proxy._call, whose proxy of a method (methodType "fn") holds the proxy it was read from."""

    def _call(self: Any, method: str, method_type: str, value: Any) -> Any:
        result = call(self, method, method_type, value)
        if method_type == "fn":
            object.__setattr__(result, "_of", self)  # past Proxy.__setattr__, which would set a JS property
        return result

    return _call


def import_bridge() -> ModuleType:
    """`javascript`, imported once; importing it starts the Node process."""
    if "javascript" in sys.modules:
        return sys.modules["javascript"]
    spec = importlib.util.find_spec("javascript")
    if spec is None or spec.loader is None:
        raise ImportError("the JSPyBridge package `javascript` is not installed (make setup)")
    caller_force_color = os.environ.get("FORCE_COLOR")
    package = importlib.util.module_from_spec(spec)
    sys.modules["javascript"] = package  # so its submodules import without running its __init__ (which starts Node)
    try:
        connection = importlib.import_module("javascript.connection")
        connection.print = node_line  # type: ignore[attr-defined]  # its [JSE] lines and its stdout copier
        connection.stdout = subprocess.PIPE  # type: ignore[attr-defined]
        connection.notebook = True  # type: ignore[attr-defined]  # "copy Node's stdout in a thread"
        connection.stdout_read = _copy_node_stdout(connection)  # type: ignore[attr-defined]
        proxy = importlib.import_module("javascript.proxy")
        proxy.print = _proxy_print  # type: ignore[attr-defined]
        proxy.Proxy._call = _keeping_its_object(proxy.Proxy._call)  # type: ignore[method-assign]
        events = importlib.import_module("javascript.events")
        events.EventLoop.queue_request = _patient(events.EventLoop.queue_request)  # type: ignore[method-assign]
        events.EventLoop.await_response = _patient(events.EventLoop.await_response)  # type: ignore[method-assign]
        events.threading = proxy.threading = _threading_with_forgiving_barrier()  # type: ignore[attr-defined]
        os.environ["FORCE_COLOR"] = "0"  # for the Node child, spawned by the package's __init__
        spec.loader.exec_module(package)
    except BaseException:
        for name in [n for n in sys.modules if n == "javascript" or n.startswith("javascript.")]:
            del sys.modules[name]
        raise
    finally:
        if caller_force_color is None:
            os.environ.pop("FORCE_COLOR", None)
        else:
            os.environ["FORCE_COLOR"] = caller_force_color
    return package
