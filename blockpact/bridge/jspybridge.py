"""Import JSPyBridge (`javascript`) with its Node child's output made quiet and plain.

Left alone, JSPyBridge (1.2) hands Node the terminal's stdout, or, whenever `sys.stdout` is not the
process's own (pytest's capture, a redirect), copies Node's stdout with `print` in a loop that prints an
empty line for every read after Node closed it: hundreds of blank lines per run. It also prints Node's
non-protocol stderr lines as `[JSE] line` on stdout with an extra newline, and sets FORCE_COLOR for the
Node child. Importing it through `import_bridge()` instead pipes Node's stdout always, copies each
non-empty line of it, and of its stray stderr, to our stderr as `node: line` without colour codes, stops
at end of file, and starts Node with FORCE_COLOR=0. The caller's own FORCE_COLOR is left as it was
(rich reads it).

When Node dies, the rest of its stderr (the trace of the exception that ended it) is still read and shown:
JSPyBridge stopped reading as soon as the process was gone.

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

No request or answer is lost between threads. JSPyBridge serves calls from any thread (the asyncio loop's, the
worker threads that ask a wedged runtime whether it is there), but (1) its Executor keeps a call's request ids
and argument counters on itself, shared by all threads: two calls at once could take the same id, and one of
them got the other's answer or none; (2) it queued a request to be sent before registering its id, and a call
that passes Python objects registered its second answer (Node naming those objects, sent first) only after
sending the call, so an answer that came back first was dropped ("Execution timed out"); (3) its loop thread sent its list of outgoing requests and then replaced it
with an empty one, and took Node's answers by swapping the reader thread's list for an empty one: a request
appended between the two steps was never sent, an answer appended to the old list as it was swapped never read.
Each way the caller waited out its whole bound ("Call to 'settle' timed out": a unit failed with cause bridge on
a busy machine; about 1 in 10,000 calls with six threads calling at once and a short GIL switch interval).
Here each thread has its own range of ids and its own counters, a call's answers are registered before it is
queued (the naming one dropped when the call's own answer shows none is coming), and both lists are taken and
emptied in one step.

And an answer that comes after its caller gave up no longer kills the bridge: JSPyBridge's reader thread
hands every answer over through a `threading.Barrier(2, timeout=5)` that the caller must also reach; a
caller that timed out never does, the barrier breaks, and the exception ended the reader thread, so every
later request of that runtime went unanswered (a wedge, seen closing a shard of 32 bots). Here a broken
barrier costs the reader those 5 s and nothing else.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from types import ModuleType
from typing import Any

from blockpact.bridge.machine_load import HELD_SECONDS, node_held

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


def _reading_to_the_end(connection: ModuleType) -> Any:
    """connection.com_io, which stops reading Node's stderr as soon as Node has exited: the rest of what Node wrote
    last, the trace of the uncaught exception that ended it, was lost (a 64-bot runtime died with nothing said).
    Here what is left is read to its end and shown."""
    com_io = connection.com_io

    def read() -> None:
        com_io()
        me = threading.current_thread()
        proc = getattr(me, "blockpact_proc", None)  # this reader's own process, not whichever started since
        try:
            rest = b"" if proc is None or proc.stderr is None else proc.stderr.read()
        except (OSError, ValueError):  # closed by whoever stopped the bridge
            rest = b""
        for line in rest.decode("utf-8", errors="replace").splitlines():
            if not line.startswith('{"r"'):
                connection.print("[JSE]", line)
        _wake_waiting_calls(getattr(me, "blockpact_loop", None))

    return read


def _wake_waiting_calls(loop: Any) -> None:
    """Node is gone: every call still waiting on its loop is woken, to find no answer and fail (runtime.call:
    BridgeBroken). JSPyBridge left such a caller blocked for its whole bound: a world master's drainJournal
    in flight when the bots' runtime was killed held the episode 32 s at load 11 (issue 18 asks 15 s). The
    loop is the one this process served (set on its reader thread), not the current one, which may be a new
    runtime's or None once the dead one was closed. A call whose answer came just before is told "gone" too."""
    if loop is None:
        return
    for entry in list(loop.requests.values()):
        entry[0].set()


class _PopenRecording:
    """connection's `subprocess`, whose Popen records the process it starts on the thread that starts it (the
    reader thread, com_io), so that thread knows its own process after it ends."""

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)

    @staticmethod
    def Popen(*args: Any, **kwargs: Any) -> subprocess.Popen:  # noqa: N802 (subprocess's name)
        proc = subprocess.Popen(*args, **kwargs)
        threading.current_thread().blockpact_proc = proc  # type: ignore[attr-defined]
        return proc


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
            # JSPyBridge's own default: patience (a week with BLOCKPACT_NODE_DEBUG: machine_load.node_held)
            timeout = HELD_SECONDS if node_held() else MIN_REQUEST_SECONDS
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


class _Outbox:
    """JSPyBridge's outgoing requests: appended by any thread, taken whole when the loop iterates over them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[Any] = []

    def append(self, payload: Any) -> None:
        with self._lock:
            self._items.append(payload)

    def __iter__(self) -> Any:
        with self._lock:
            items, self._items = self._items, []
        return iter(items)


def _outbox() -> property:
    """EventLoop.outbound as an _Outbox per loop; the loop's `self.outbound = []` after sending changes nothing
    (what it sent was taken out as it was sent)."""

    def get(loop: Any) -> _Outbox:  # on every request: made once, not on each access
        box = loop.__dict__.get("_outbox")
        return box if box is not None else loop.__dict__.setdefault("_outbox", _Outbox())

    def set_(loop: Any, payloads: list[Any]) -> None:
        for payload in payloads:
            get(loop).append(payload)

    return property(get, set_)


_ID_RANGE = 2**32  # request ids a thread may use before its range meets the next one's (JS numbers are exact to 2**53)
_thread_ranges = iter(range(1, 2**20))  # next() on it is atomic under the GIL


def _per_thread(name: str) -> property:
    """An Executor attribute with a value per thread; `i` (the last request id) starts in the thread's own range."""

    def state(executor: Any) -> threading.local:  # on every call: made once, not on each access
        local = executor.__dict__.get("_per_thread")
        return local if local is not None else executor.__dict__.setdefault("_per_thread", threading.local())

    def get(executor: Any) -> Any:
        local = state(executor)
        if not hasattr(local, name):
            setattr(local, name, next(_thread_ranges) * _ID_RANGE if name == "i" else 0)
        return getattr(local, name)

    def set_(executor: Any, value: Any) -> None:
        if name == "i" and not hasattr(state(executor), "i"):
            return  # Executor.__init__'s `self.i = 0`: a thread's range starts when it first calls
        setattr(state(executor), name, value)

    return property(get, set_)


class _NamingAnswer(list):  # type: ignore[type-arg]
    """[event, timeout] of a call's naming answer, registered with the call (JSPyBridge's pcall: id + 1)."""


class _Requests(dict):  # type: ignore[type-arg]
    """EventLoop.requests; removing a call's entry (its answer came) also removes its naming answer's, if unused:
    Node names a call's Python arguments before it answers the call, or never."""

    def __delitem__(self, request_id: Any) -> None:
        super().__delitem__(request_id)
        if isinstance(self.get(request_id + 1), _NamingAnswer):
            self.pop(request_id + 1, None)


def _with_request_table(init: Any) -> Any:
    def __init__(loop: Any, *args: Any, **kwargs: Any) -> None:
        init(loop, *args, **kwargs)  # starts the connection's reader thread
        loop.requests = _Requests(loop.requests)
        reader = sys.modules["javascript.connection"].com_thread
        reader.blockpact_loop = loop  # the loop whose waiting calls it wakes when its Node ends

    return __init__


def _registered_first(loop: Any, request_id: int, payload: Any, timeout: float | None = None) -> threading.Event:
    """EventLoop.queue_request, registering the request's answers before it can be sent (and answered). A call
    (pcall: a JSON string) may also get a naming answer, at id + 1."""
    if isinstance(payload, str):
        loop.requests[request_id + 1] = _NamingAnswer([threading.Event(), timeout])
    answered = threading.Event()
    loop.requests[request_id] = [answered, timeout]
    loop.outbound.append(payload)
    loop.queue.put("send")
    return answered


def _awaited(loop: Any, request_id: int, timeout: float | None = None) -> threading.Event:
    """EventLoop.await_response (pcall's wait for its naming answer): the event registered with the call, set
    already if the answer came."""
    entry = loop.requests.get(request_id)
    if isinstance(entry, _NamingAnswer):
        return entry[0]
    answered = threading.Event()
    if request_id in loop.responses:
        answered.set()
        return answered
    loop.requests[request_id] = [answered, timeout]
    loop.queue.put("send")
    return answered


def _read_all(connection: ModuleType) -> Any:
    """connection.readAll: the answers read so far, taken out of the reader thread's list (never replaced, so
    the reader always appends to the list that is read next)."""

    def read_all() -> list[Any]:
        items = connection.com_items
        taken = items[: len(items)]
        del items[: len(taken)]  # an answer appended meanwhile is past them, and stays
        return taken

    return read_all


def _keeping_its_object(call: Any) -> Any:
    """Proxy._call, whose proxy of a method (methodType "fn") holds the proxy it was read from."""

    def _call(self: Any, method: str, method_type: str, value: Any) -> Any:
        result = call(self, method, method_type, value)
        if method_type == "fn":
            object.__setattr__(result, "_of", self)  # past Proxy.__setattr__, which would set a JS property
        return result

    return _call


def post(method: Any, *args: Any) -> None:
    """Call the JS method `method` (a method's proxy, `obj.f`) with JSON arguments, and do not wait for its answer.

    A call through JSPyBridge costs the calling thread a round trip and the reader thread a hand-over (an Event
    set, then a Barrier both reach): about 0.4 ms of Python CPU on an idle machine, and the caller blocked until
    Node answers. A simulated program's every primitive call is answered this way (bridge/sim/body.py `settle`),
    thousands per episode, and nothing is done with the answer. The request is sent in turn with every other
    (one outgoing list, one pipe); Node's answer comes back under an id nobody waits for, and is dropped."""
    executor = method._exe
    request_id = executor.i + 1
    executor.i += 2  # as pcall takes them: the call's id and its naming answer's
    packet = {"r": request_id, "action": "call", "ffid": method._pffid, "key": method._pname, "args": list(args), "p": 0}
    executor.loop.queue_payload(json.dumps(packet))


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
        connection.subprocess = _PopenRecording()  # type: ignore[attr-defined]
        connection.notebook = True  # type: ignore[attr-defined]  # "copy Node's stdout in a thread"
        connection.stdout_read = _copy_node_stdout(connection)  # type: ignore[attr-defined]
        connection.readAll = _read_all(connection)  # type: ignore[attr-defined]
        connection.com_io = _reading_to_the_end(connection)  # type: ignore[attr-defined]
        proxy = importlib.import_module("javascript.proxy")
        proxy.print = _proxy_print  # type: ignore[attr-defined]
        proxy.Proxy._call = _keeping_its_object(proxy.Proxy._call)  # type: ignore[method-assign]
        for name in ("i", "ctr", "expectReply"):  # a call's request ids and argument counters, per thread
            setattr(proxy.Executor, name, _per_thread(name))
        events = importlib.import_module("javascript.events")
        events.EventLoop.__init__ = _with_request_table(events.EventLoop.__init__)  # type: ignore[method-assign]
        events.EventLoop.queue_request = _patient(_registered_first)  # type: ignore[method-assign]
        events.EventLoop.await_response = _patient(_awaited)  # type: ignore[method-assign]
        events.EventLoop.outbound = _outbox()  # type: ignore[attr-defined]
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
