"""A local OpenAI-compatible HTTP server with scripted replies and failure injection.

A hosted LLM cannot run here, so tests drive the real `openai` client over real HTTP against
this stub. It serves `POST /v1/chat/completions` (non-streaming) and `GET /v1/models` with the
shapes the real API uses, replies from a queue and/or a function of the request, can inject
429/5xx, slow answers, malformed bodies and empty content, and records every request it received.

Run it by hand with `python -m blockpact.agents.testing.openai_stub`.
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from blockpact.agents.testing.stub_quirks import ServerQuirks, event_stream
from blockpact.agents.testing.stub_replies import RecordedRequest, Responder, Script, StubReply, echo_last_user_message
from blockpact.llm.wire import message_text


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Agents open many connections at once; the default backlog of 5 makes the extra ones wait
    # a full second for a SYN retransmit.
    request_queue_size = 128


class OpenAIStub:
    """A threaded HTTP server on 127.0.0.1 (free port by default); use as a context manager.

    Replies come from the `replies` queue first, then from `responder(request_json)`. With
    `api_key` set, other bearer keys get a 401.
    """

    def __init__(
        self,
        replies: Iterable[Script] = (),
        *,
        responder: Responder = echo_last_user_message,
        models: Sequence[str] | None = ("stub-model",),
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        quirks: ServerQuirks = ServerQuirks(),
    ) -> None:
        self.quirks = quirks
        self._queue: deque[Script] = deque(replies)
        self._responder = responder
        self.models = list(models) if models is not None else None  # None: no /v1/models (404)
        self.api_key = api_key
        self._address = (host, port)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._server: _Server | None = None
        self._port: int | None = None
        self._thread: threading.Thread | None = None
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0  # chat completions being answered now, and the most at once
        self.max_in_flight = 0

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> OpenAIStub:
        server = _Server(self._address, _make_handler(self))
        self._server = server
        self._port = int(server.server_address[1])
        # A short poll interval makes stop() quick (the default 0.5 s adds up over a test suite).
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name="openai-stub", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end pending delays and close open keep-alive connections."""
        with self._lock:  # stopped once, also when a test's thread and its fixture both stop it
            server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        with self._lock:
            for conn in list(self._connections):
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (still known after `stop`, for assertions on recorded URLs)."""
        if self._port is None:
            raise RuntimeError("stub was never started")
        return self._port

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (ends in /v1) to give a client."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting and inspection -----------------------------------------------------------

    def push(self, *replies: Script) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_script(self, body: dict[str, Any]) -> StubReply:
        with self._lock:
            script = self._queue.popleft() if self._queue else None
        if script is None:
            script = self._responder(body)
        return StubReply(content=script) if isinstance(script, str) else script

    def _track(self, conn: socket.socket, open_: bool) -> None:
        with self._lock:
            (self._connections.add if open_ else self._connections.discard)(conn)


def _words(text: str | None) -> int:
    return len(text.split()) if text else 0


def _error_body(message: str, type_: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def _completion_body(stub_reply: StubReply, request: dict[str, Any], serial: int) -> dict[str, Any]:
    prompt = sum(_words(message_text(m)) for m in request.get("messages", []))
    prompt_tokens = stub_reply.prompt_tokens if stub_reply.prompt_tokens is not None else prompt
    completion_tokens = (
        stub_reply.completion_tokens if stub_reply.completion_tokens is not None else _words(stub_reply.content)
    )
    return {
        "id": f"chatcmpl-stub-{serial}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": stub_reply.model or request.get("model", "stub-model"),
        "system_fingerprint": "fp_blockpact_stub",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": stub_reply.content, "refusal": None},
                "logprobs": None,
                "finish_reason": stub_reply.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _make_handler(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the openai client expects

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in separate writes: without this, Nagle's algorithm and
            # delayed ACKs add ~40 ms to every response.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            stub._track(self.connection, True)

        def finish(self) -> None:
            stub._track(self.connection, False)
            super().finish()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            """Silent: request lines would clutter test output."""

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None,
                  content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("x-request-id", f"req_stub_{len(stub.requests)}")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to deliver

        def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(payload).encode(), headers)

        def _read_body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else None
            except json.JSONDecodeError:
                return raw.decode(errors="replace")

        def _authorized(self) -> bool:
            if stub.api_key is None:
                return True
            given = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
            if given == stub.api_key:
                return True
            # Echo the offending key, as some proxies do, so tests can check clients redact it.
            message = f"Incorrect API key provided: {given}"
            self._send_json(401, _error_body(message, "invalid_request_error", "invalid_api_key"))
            return False

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            stub._record(RecordedRequest("GET", self.path, dict(self.headers.items())))
            if not self._authorized():
                return
            if self.path.rstrip("/").endswith("/v1/models") and stub.models is not None:
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "blockpact-stub"} for m in stub.models]
                self._send_json(200, {"object": "list", "data": data})
            else:
                self._send_json(404, _error_body(f"Unknown path {self.path}", "invalid_request_error", None))

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            body = self._read_body()
            stub._record(RecordedRequest("POST", self.path, dict(self.headers.items()), body))
            if not self._authorized():
                return
            if not self.path.rstrip("/").endswith("/v1/chat/completions"):
                self._send_json(404, _error_body(f"Unknown path {self.path}", "invalid_request_error", None))
                return
            if not isinstance(body, dict) or "messages" not in body or "model" not in body:
                self._send_json(400, _error_body("'model' and 'messages' are required", "invalid_request_error", None))
                return
            quirks = stub.quirks
            if (refusal := quirks.refusal(body)) is not None:
                self._send_json(*refusal)
                return
            script = stub._next_script(body)
            with stub._lock:
                stub.in_flight += 1
                stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
            try:
                delay = script.delay_s + quirks.latency_s
                if delay and stub._stopping.wait(delay):
                    return  # stopped while delaying
                self._answer(script, body, quirks)
            finally:
                with stub._lock:
                    stub.in_flight -= 1

        def _answer(self, script: StubReply, body: dict[str, Any], quirks: ServerQuirks) -> None:
            if script.stall:
                self._stall()
            elif script.raw_body is not None:
                self._send(script.status, script.raw_body, content_type=script.content_type)
            elif script.status != 200:
                headers = {"Retry-After": script.retry_after} if script.retry_after is not None else {}
                reason = script.error_message or HTTPStatus(script.status).phrase
                self._send_json(script.status, _error_body(reason, "stub_error", str(script.status)), headers)
            else:
                completion = quirks.shape(_completion_body(script, body, len(stub.chat_requests)), body)
                if quirks.streams(body):
                    usage = (body.get("stream_options") or {}).get("include_usage") or body.get("stream") is not True
                    self._send(200, event_stream(completion, bool(usage)), content_type="text/event-stream")
                else:
                    self._send_json(200, completion)

        def _stall(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                while not stub._stopping.wait(0.2):
                    self.wfile.write(b": waiting\n\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted, for trying clients and commands by hand."""
    parser = argparse.ArgumentParser(prog="python -m blockpact.agents.testing.openai_stub", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--model", action="append", help="model id to list (repeatable)")
    parser.add_argument("--reply", help="always answer this text (default: echo the last user message)")
    parser.add_argument("--api-key", help="require this bearer key (default: accept any)")
    parser.add_argument("--world", help="play every blockpact role on this world (e.g. for `blockpact run --agents llm`)")
    parser.add_argument("--reasoning-model", action="store_true",
                        help="refuse max_tokens and temperature as OpenAI's reasoning models do")
    parser.add_argument("--reasoning-tokens", type=int, default=0, metavar="N",
                        help="spend N hidden reasoning tokens before each reply, under the token cap")
    parser.add_argument("--latency", type=float, default=0.0, metavar="SECONDS",
                        help="add this delay to every chat completion, as a hosted model's latency")
    args = parser.parse_args(argv)
    responder: Responder = (lambda _req: args.reply) if args.reply is not None else echo_last_user_message
    if args.world is not None:
        from blockpact.agents.testing.protocol_responder import ProtocolResponder  # imports the world layer
        from blockpact.worlds.world_files import load_world

        responder = ProtocolResponder(load_world(args.world))
    stub = OpenAIStub(responder=responder, models=args.model or ["stub-model"], api_key=args.api_key, port=args.port,
                      quirks=ServerQuirks(latency_s=args.latency, reasoning_model=args.reasoning_model,
                                              reasoning_tokens=args.reasoning_tokens))
    with stub:
        print(f"OpenAI-compatible stub listening on {stub.base_url}", flush=True)
        print(f"  export OPENAI_BASE_URL={stub.base_url} OPENAI_MODEL={stub.models[0]}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("stub stopped", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
