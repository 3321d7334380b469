"""A scripted stand-in for a language model that speaks the OpenAI HTTP protocol.

It is a real HTTP server on 127.0.0.1, so the real client code, its retries, timeouts and
streaming parser are exercised. Script answers per task with the marker that starts each
system prompt (see the task modules under memoryapp/engine/llm/):

    with ScriptedLLMServer() as server:
        server.script("[memoryapp:extract]", Garbage("not json"), '{"candidates": []}')
        server.script(None, Fail(500), Delay(2.0, then="late"))
        server.script(None, Raw("<html>502 Bad Gateway</html>"), Cut("half of an answer", after=2))
        llm = OpenAICompatibleLLM(server.url, "test", "scripted")

Unscripted requests go to `server.default` if set, else echo the last user message.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "CHAT_TURN",
    "Chunks",
    "Cut",
    "Delay",
    "Fail",
    "Garbage",
    "Raw",
    "Response",
    "ScriptedLLMServer",
    "pseudo_embedding",
]


# A marker of the chat turn's system prompt (engine/chat/context.py SYSTEM_PROMPT). Script chat replies with it
# where a Celery worker may ask the same server to extract or summarise meanwhile (opening a new chat
# ends the last one), so that its requests cannot take the reply meant for the turn.
CHAT_TURN = "long-term memory of this user"


@dataclass(frozen=True)
class Fail:
    """Answer with an HTTP error status (before any streaming starts)."""

    status: int = 500
    body: Any = None  # dict/str; None gives an OpenAI-style error object


@dataclass(frozen=True)
class Delay:
    """Wait, then answer with `then` (None: whatever an unscripted request would get)."""

    seconds: float
    then: Response | None = None


@dataclass(frozen=True)
class Garbage:
    """Content returned verbatim; a str does the same, this just says "meant to be invalid"."""

    text: str


@dataclass(frozen=True)
class Raw:
    """Not the protocol at all: this body, verbatim, with a 200 (say, a proxy's HTML page)."""

    body: str
    status: int = 200
    content_type: str = "text/html"


@dataclass(frozen=True)
class Cut:
    """A streamed answer that stops after `after` word-sized deltas: no finish_reason, no [DONE], and the
    connection closed (the model server crashed mid-reply). Unstreamed requests get the body cut in half."""

    text: str
    after: int = 1


@dataclass(frozen=True)
class Chunks:
    """A streamed answer in exactly these deltas (a marker like "[1]" split across them, say); unstreamed
    requests get them joined."""

    pieces: tuple[str, ...]


Response = str | Fail | Delay | Garbage | Raw | Cut | Chunks
Responder = Callable[[dict], "Response"]


def pseudo_embedding(text: str, dim: int) -> list[float]:
    """Deterministic unit vector: hashed words and CJK bigrams, so similar texts land close."""
    lowered = text.lower()
    features = re.findall(r"[a-z0-9]+", lowered)
    for run in re.findall(r"[\u3400-\u9fff]+", lowered):
        features += [run[i : i + 2] for i in range(max(1, len(run) - 1))]
    vector = [0.0] * dim
    for feature in features or [lowered]:
        digest = hashlib.sha256(feature.encode()).digest()
        index = int.from_bytes(digest[:4], "little") % dim
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


@dataclass
class _State:
    model: str
    embedding_dim: int
    queues: dict[str | None, deque] = field(default_factory=dict)
    requests: list[dict] = field(default_factory=list)
    default: Responder | None = None
    embeddings_left: int | None = None  # /embeddings requests answered before the rest fail with 503 (None: all)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)


class ScriptedLLMServer:
    def __init__(self, model: str = "scripted-model", embedding_dim: int = 384) -> None:
        self.state = _State(model=model, embedding_dim=embedding_dim)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting ----------------------------------------------------------

    def script(self, marker: str | None, *responses: Response) -> None:
        """Queue responses for chat requests whose system prompt contains `marker` (None: any)."""
        with self.state.lock:
            self.state.queues.setdefault(marker, deque()).extend(responses)

    def forget_script(self) -> None:
        """Drop every queued answer not yet asked for."""
        with self.state.lock:
            self.state.queues.clear()

    @property
    def default(self) -> Responder | None:
        return self.state.default

    @default.setter
    def default(self, responder: Responder | None) -> None:
        self.state.default = responder

    @property
    def requests(self) -> list[dict]:
        """Bodies of every request so far (a snapshot; `_path` says where it went)."""
        with self.state.lock:
            return list(self.state.requests)

    def chat_requests(self, marker: str | None = None) -> list[dict]:
        return [
            r
            for r in self.requests
            if r["_path"].endswith("/chat/completions") and (marker is None or marker in system_text(r))
        ]

    def pending(self) -> int:
        with self.state.lock:
            return sum(len(q) for q in self.state.queues.values())

    # -- lifecycle ----------------------------------------------------------

    def start(self) -> ScriptedLLMServer:
        handler = type("Handler", (_Handler,), {"state": self.state})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-llm", daemon=True
        )  # a short poll keeps stop() (and each test's teardown) fast
        self._thread.start()
        return self

    def stop(self) -> None:
        self.state.stopping.set()  # wakes handlers sleeping in a Delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"


def system_text(body: dict) -> str:
    return "\n".join(
        str(m.get("content") or "") for m in body.get("messages", []) if m.get("role") in ("system", "developer")
    )


def _last_user(body: dict) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # content parts
                return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


class _Handler(BaseHTTPRequestHandler):
    state: _State
    protocol_version = "HTTP/1.0"  # one request per connection: simple, and nothing lingers

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            model = {"id": self.state.model, "object": "model", "created": 0, "owned_by": "memoryapp-tests"}
            self._json(200, {"object": "list", "data": [model]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        with self.state.lock:
            self.state.requests.append({**body, "_path": self.path})
        try:
            if self.path.endswith("/chat/completions"):
                self._chat(body, self._next_response(body))
            elif self.path.endswith("/embeddings"):
                self._embeddings(body)
            else:
                self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test); nothing to do

    def _next_response(self, body: dict) -> Response:
        system = system_text(body)
        with self.state.lock:
            for marker, queue in self.state.queues.items():
                if marker is not None and queue and marker in system:
                    return queue.popleft()
            if self.state.queues.get(None):
                return self.state.queues[None].popleft()
        return self._unscripted(body)

    def _unscripted(self, body: dict) -> Response:
        if self.state.default is not None:
            return self.state.default(body)
        return _last_user(body)

    def _chat(self, body: dict, response: Response) -> None:
        while isinstance(response, Delay):
            if self.state.stopping.wait(response.seconds):
                return
            response = response.then if response.then is not None else self._unscripted(body)
        if isinstance(response, Fail):
            error = response.body
            if error is None:
                error = {"error": {"message": f"scripted failure {response.status}", "type": "server_error"}}
            self._json(response.status, error)
            return
        if isinstance(response, Raw):
            self._raw(response.status, response.body.encode(), response.content_type)
            return
        if isinstance(response, Cut):
            self._cut(body, response)
            return
        pieces = list(response.pieces) if isinstance(response, Chunks) else None
        content = response.text if isinstance(response, Garbage) else "".join(pieces) if pieces else str(response)
        model = body.get("model") or self.state.model
        ident, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
        if body.get("stream"):
            self._stream(ident, created, model, content, pieces)
            return
        tokens = len(content.split())
        self._json(
            200,
            {
                "id": ident,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                        "logprobs": None,
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": tokens, "total_tokens": tokens + 1},
            },
        )

    def _stream(self, ident: str, created: int, model: str, content: str, pieces: list[str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()

        def chunk(delta: dict, finish: str | None = None) -> None:
            event = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
            }
            self.wfile.write(f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode())
            self.wfile.flush()

        chunk({"role": "assistant", "content": ""})
        for piece in pieces or re.findall(r"\s*\S+|\s+", content):  # word-sized deltas unless scripted
            chunk({"content": piece})
        chunk({}, finish="stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _cut(self, body: dict, response: Cut) -> None:
        if not body.get("stream"):
            whole = json.dumps(
                {
                    "id": "chatcmpl-cut",
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": response.text},
                            "finish_reason": "stop",
                        }
                    ],
                }
            )
            self._raw(200, whole[: len(whole) // 2].encode(), "application/json")
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        model, created = body.get("model") or self.state.model, int(time.time())
        for piece in re.findall(r"\s*\S+|\s+", response.text)[: response.after]:
            event = {
                "id": "chatcmpl-cut",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
            }
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.write(b'data: {"id": "chatcmpl-cut", "choi')  # half an event, then the line drops
        self.wfile.flush()

    def _raw(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _embeddings(self, body: dict) -> None:
        with self.state.lock:
            refused = self.state.embeddings_left is not None and self.state.embeddings_left <= 0
            if self.state.embeddings_left is not None and not refused:
                self.state.embeddings_left -= 1
        if refused:
            self._json(503, {"error": {"message": "embeddings are down (scripted)", "type": "server_error"}})
            return
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
        dim = int(body.get("dimensions") or self.state.embedding_dim)
        data = []
        for i, text in enumerate(texts):
            vector: Any = pseudo_embedding(text, dim)
            if body.get("encoding_format") == "base64":
                vector = base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode()
            data.append({"object": "embedding", "index": i, "embedding": vector})
        tokens = sum(len(t.split()) for t in texts)
        self._json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model") or self.state.model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _json(self, status: int, payload: Any) -> None:
        data = (payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
