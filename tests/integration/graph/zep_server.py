"""A small stand-in for a Zep server (API v2, Community Edition), speaking exactly the routes and JSON
shapes zep-python 2.0.2 uses from memoryapp/graph/zep.py (read from the installed SDK):

    GET    /api/v2/users/{user_id}               -> User | 404
    POST   /api/v2/users                         {user_id, ...}                   -> User | 400 if it exists
    DELETE /api/v2/users/{user_id}               -> {"message"} (and the user's sessions) | 404
    GET    /api/v2/users-ordered?pageNumber&pageSize -> {"users", "total_count", "row_count"}
    POST   /api/v2/sessions                      {session_id, user_id, metadata}   -> Session | 400 if it exists
    POST   /api/v2/sessions/{id}/memory          {messages: [{role, role_type, content, metadata}]} -> {"message"}
    DELETE /api/v2/sessions/{id}/memory          -> {"message"} | 404
    POST   /api/v2/sessions/search?limit=N       {user_id, text, search_scope}    -> {"results": [{fact, session_id, score}]}

Every request must carry `Authorization: Api-Key <key>`. A real Zep derives facts with its own
model; this one keeps each message's text as its fact and scores by shared words.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class ZepState:
    api_key: str
    users: dict[str, dict] = field(default_factory=dict)
    sessions: dict[str, dict] = field(default_factory=dict)
    facts: dict[str, list[dict]] = field(default_factory=dict)  # session id -> facts
    requests: list[dict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class ZepServer:
    def __init__(self, api_key: str = "zep-test-key") -> None:
        self.state = ZepState(api_key=api_key)
        self._httpd: ThreadingHTTPServer | None = None

    def __enter__(self) -> ZepServer:
        handler = type("Handler", (_Handler,), {"state": self.state})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def requests(self) -> list[dict]:
        with self.state.lock:
            return list(self.state.requests)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


class _Handler(BaseHTTPRequestHandler):
    state: ZepState
    protocol_version = "HTTP/1.0"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        url = urlparse(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"null") if length else None
        with self.state.lock:
            self.state.requests.append(
                {
                    "method": method,
                    "path": url.path,
                    "query": parse_qs(url.query),
                    "body": body,
                    "authorization": self.headers.get("Authorization"),
                }
            )
        if self.headers.get("Authorization") != f"Api-Key {self.state.api_key}":
            return self._json(401, {"message": "unauthorized"})
        path = url.path.removeprefix("/api/v2/").rstrip("/")
        with self.state.lock:
            status, payload = self._route(method, path, body or {}, parse_qs(url.query))
        self._json(status, payload)

    def _route(self, method: str, path: str, body: dict, query: dict) -> tuple[int, Any]:
        s = self.state
        parts = path.split("/")
        if method == "POST" and path == "users":
            if body.get("user_id") in s.users:
                return 400, {"message": "user already exists"}
            user = {
                "uuid": str(uuid.uuid4()),
                "user_id": body.get("user_id"),
                "created_at": _now(),
                "metadata": body.get("metadata"),
            }
            s.users[user["user_id"]] = user
            return 201, user
        if path == "users-ordered" and method == "GET":
            users = list(s.users.values())
            return 200, {
                "users": users[: int(query.get("pageSize", ["10"])[0])],
                "total_count": len(users),
                "row_count": len(users),
            }
        if parts[0] == "users" and len(parts) == 2:
            user = s.users.get(parts[1])
            if user is None:
                return 404, {"message": "not found"}
            if method == "DELETE":
                del s.users[parts[1]]
                for sid in [sid for sid, sess in s.sessions.items() if sess["user_id"] == parts[1]]:
                    s.sessions.pop(sid)
                    s.facts.pop(sid, None)
                return 200, {"message": "OK"}
            return 200, user
        if method == "POST" and path == "sessions":
            if body.get("session_id") in s.sessions:
                return 400, {"message": "session already exists"}
            if body.get("user_id") not in s.users:
                return 400, {"message": "user not found"}
            session = {
                "uuid": str(uuid.uuid4()),
                "session_id": body["session_id"],
                "user_id": body["user_id"],
                "metadata": body.get("metadata"),
                "created_at": _now(),
            }
            s.sessions[session["session_id"]] = session
            return 201, session
        if method == "POST" and path == "sessions/search":
            return 200, {"results": self._search(body, int(query.get("limit", ["10"])[0]))}
        if parts[0] == "sessions" and len(parts) == 3 and parts[2] == "memory":
            if parts[1] not in s.sessions:
                return 404, {"message": "session not found"}
            if method == "POST":
                for message in body.get("messages", []):
                    s.facts.setdefault(parts[1], []).append(
                        {"uuid": str(uuid.uuid4()), "fact": message["content"], "created_at": _now(), "rating": None}
                    )
                return 200, {"message": "OK"}
            if method == "DELETE":
                s.facts.pop(parts[1], None)
                return 200, {"message": "OK"}
        return 404, {"message": f"no route {method} {path}"}

    def _search(self, body: dict, limit: int) -> list[dict]:
        if body.get("search_scope") not in (None, "facts"):
            return []
        wanted = _words(body.get("text") or "")
        results = []
        for sid, session in self.state.sessions.items():
            if session["user_id"] != body.get("user_id"):
                continue
            for fact in self.state.facts.get(sid, []):
                words = _words(fact["fact"])
                score = len(wanted & words) / max(len(wanted | words), 1)
                if score > 0:
                    results.append({"fact": fact, "session_id": sid, "score": score})
        results.sort(key=lambda r: -r["score"])
        return results[:limit]

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
