"""A local OpenAI-compatible chat server (127.0.0.1 only) that injects the faults real services produce.

Faults (:data:`FAULTS`): ``429`` (with ``Retry-After``, in seconds or as an HTTP date), ``500``, ``slow``
(the reply comes after ``slow`` seconds, past the client's timeout), ``truncated`` (a body shorter than
its Content-Length, then the connection closes: ``IncompleteRead``), ``invalid-json`` (a 200 whose body
is not JSON), ``reset`` (the connection is reset before any reply). Which request gets which fault is a
pure function of (seed, prompt, attempt): ``plan(key, attempt)``; by default each distinct prompt meets
a fault on each of its first ``faulty_attempts`` attempts with probability ``rate``, so a client that
retries at least that often loses nothing.

The server also emulates the request shapes of its ``dialect``: ``openai`` refuses grammars and schemas
outside strict mode (400), ``llama.cpp`` reads a top-level ``grammar``, ``vllm`` ``structured_outputs``.
Every request body is kept in ``requests``, and what was injected in ``injected``.
"""

from __future__ import annotations

import hashlib
import json
import random
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "500", "slow", "truncated", "invalid-json", "reset")


def prompt_of(body: dict[str, Any]) -> str:
    """The user message of a chat request."""
    return body["messages"][-1]["content"]


def answer_of(body: dict[str, Any]) -> str:
    """The answer the server gives a prompt: derived from it, so a mixed-up answer is detected."""
    return "answer " + hashlib.sha256(prompt_of(body).encode()).hexdigest()[:16]


class _Server(ThreadingHTTPServer):
    """A threading server with a listen backlog for 16+ concurrent clients (the default, 5, refuses some)."""

    request_queue_size = 128
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """Injected faults raise in handlers by design: stay quiet."""


class FakeServer:
    """A fault-injecting chat server on 127.0.0.1 (use as a context manager)."""

    def __init__(self, rate: float = 0.0, faults: tuple[str, ...] = FAULTS, faulty_attempts: int = 2, seed: int = 0,
                 slow: float = 0.5, retry_after: str = "0.01", dialect: str = "vllm",
                 plan: Callable[[str, int], str | None] | None = None,
                 reply: Callable[[dict[str, Any]], str | dict[str, Any]] = answer_of, delay: float = 0.0):
        self.rate, self.faults, self.faulty_attempts, self.seed = rate, faults, faulty_attempts, seed
        self.slow, self.retry_after, self.dialect, self.reply, self.delay = slow, retry_after, dialect, reply, delay
        self.plan = plan or self._default_plan
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.injected: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        self.attempts: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.httpd = _Server(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        """The base URL (``…/v1``)."""
        return f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _default_plan(self, key: str, attempt: int) -> str | None:
        """A fault for the first ``faulty_attempts`` attempts of a prompt, each with probability ``rate``."""
        if attempt >= self.faulty_attempts:
            return None
        rng = random.Random(f"{self.seed}:{key}:{attempt}")
        return rng.choice(self.faults) if rng.random() < self.rate else None

    def decide(self, body: dict[str, Any], headers: dict[str, str]) -> str | None:
        """Record the request; the fault to inject (None: answer)."""
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            attempt = self.attempts[key]
            self.attempts[key] += 1
            fault = self.plan(key, attempt)
            if fault:
                self.injected[fault] += 1
            return fault

    def shape_error(self, body: dict[str, Any]) -> str | None:
        """Why the dialect refuses this body (None: accepted)."""
        from schedc.bench.decoding import strict_problems

        if self.dialect == "openai":
            if "grammar" in body or "structured_outputs" in body:
                return "unknown parameter"
            schema = body.get("response_format", {}).get("json_schema", {}).get("schema")
            if schema is not None and strict_problems(schema):
                return "invalid schema for response_format: " + "; ".join(strict_problems(schema))
        if self.dialect == "llama.cpp" and "grammar" in body and "root ::=" not in body["grammar"]:
            return "failed to parse grammar"
        return None


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    """The request handler class bound to ``server``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server API
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fault = server.decide(body, {k.lower(): v for k, v in self.headers.items()})
            if server.delay:
                time.sleep(server.delay)
            if fault == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
                return
            if fault == "slow":
                time.sleep(server.slow)
            if fault in ("429", "500"):
                self._send(int(fault), {"error": {"message": f"injected {fault}", "type": "server_error"}},
                           {"Retry-After": self._retry_after()} if fault == "429" else {})
                return
            problem = server.shape_error(body)
            if problem:
                self._send(400, {"error": {"message": problem, "type": "invalid_request_error"}})
                return
            answer = server.reply(body)  # a text, or a whole message (e.g. with tool_calls)
            message = answer if isinstance(answer, dict) else {"role": "assistant", "content": answer}
            reply = {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": body["model"],
                     "choices": [{"index": 0, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                                  "message": message}],
                     "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
            data = json.dumps(reply).encode()
            if fault == "truncated":
                self._raw(200, data[: len(data) // 2], len(data))
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            if fault == "invalid-json":
                self._raw(200, b'{"choices": [{"message": ', 26)
                return
            with server.lock:
                server.answered[prompt_of(body)] += 1
            self._raw(200, data, len(data))

        def _retry_after(self) -> str:
            if server.retry_after == "date":
                return formatdate(time.time() + 1, usegmt=True)
            return server.retry_after

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._raw(status, json.dumps(payload).encode(), None, headers)

        def _raw(self, status: int, data: bytes, length: int | None, headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data) if length is None else length))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
            except OSError:  # the client gave up (a slow reply past its timeout)
                self.close_connection = True

        def finish(self) -> None:
            try:
                super().finish()
            except OSError:
                pass

        def log_message(self, *args: object) -> None:
            pass

    return Handler
