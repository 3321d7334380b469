"""The Zep adapter: a Zep server (Community Edition API v2) through zep-python 2.x.

Mapping: one Zep user per memoryapp user; one session per memory *version* holding that memory
as one message, so each fact Zep derives comes back (search scope "facts") with the session id
that is our episode id, hence the memory row. (A single session per user would lose that link:
Zep 2 facts do not say which message they came from.) Zep 2 has no fact validity we can set, so
supersede, forget, delete and as-of are all decided on the rows in Postgres (recall.py); purge
deletes the session's memory. Zep extracts facts with its own model: no local LLM is needed.

Verified at the protocol level only (tests/integration/graph/zep_server.py implements the routes
and shapes zep-python 2.0.2 sends); no Zep server runs in CI.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from .errors import GraphError, GraphOutputError, GraphUnavailable
from .port import GraphFact, GraphHealth

if TYPE_CHECKING:
    from memoryapp.models import Memory

    from .conf import GraphConfig

T = TypeVar("T")


class ZepGraph:
    name = "zep"
    needs_llm = False  # Zep runs its own extraction

    def __init__(self, config: GraphConfig) -> None:
        if not config.zep_api_url:
            raise GraphUnavailable("GRAPH_BACKEND is zep but ZEP_API_URL is not set")
        from zep_python.base_client import BaseClient

        self.config = config
        # BaseClient, not zep_python.client.Zep: Zep() prefers the ZEP_API_URL environment variable
        # over its base_url argument, which would ignore our settings (and override_settings).
        self.client = BaseClient(
            base_url=f"{config.zep_api_url}/api/v2",
            api_key=config.zep_api_key or "none",
            httpx_client=httpx.Client(timeout=config.op_timeout_s),
        )

    # -- ids --------------------------------------------------------------------------------

    def user_key(self, user_id: int) -> str:
        return f"{self.config.namespace}-user-{int(user_id)}"

    def session_key(self, memory: Memory) -> str:
        # A new version (content or start time) is a new session; the same version keeps its id.
        version = hashlib.sha256(f"{memory.content}\x00{memory.valid_from.isoformat()}".encode()).hexdigest()[:12]
        return f"{self.config.namespace}-memory-{memory.pk}-{version}"

    # -- the port ---------------------------------------------------------------------------

    sync_batch_size = 1  # one HTTP exchange per memory: nothing to gain from batching

    def sync_memories(self, memories: list[Memory]) -> list[str]:
        return [self.sync_memory(memory) for memory in memories]

    def sync_memory(self, memory: Memory) -> str:
        from zep_python.types import Message

        session = self.session_key(memory)
        if memory.graph_episode_id == session:
            return session  # unchanged: nothing to send
        user = self.user_key(memory.user_id)
        self._ensure_user(user)
        metadata = {"memory_id": memory.pk, "kind": memory.kind, "valid_from": memory.valid_from.isoformat()}
        self._call(
            lambda o: self.client.memory.add_session(
                session_id=session, user_id=user, metadata=metadata, request_options=o
            ),
            conflict_ok=True,
        )
        self._call(
            lambda o: self.client.memory.add(
                session,
                messages=[
                    Message(
                        role="user",
                        role_type="user",
                        content=memory.content,
                        metadata={"memory_id": memory.pk},
                    )
                ],
                request_options=o,
            )
        )
        if memory.graph_episode_id:
            self.purge(memory.graph_episode_id, memory.user_id)  # the old version's facts
        return session

    def purge(self, episode_id: str, user_id: int) -> None:
        if episode_id:
            self._call(lambda o: self.client.memory.delete(episode_id, request_options=o), missing_ok=True)

    def search(
        self,
        user_id: int,
        query: str,
        *,
        at: datetime | None,
        limit: int,
        include_history: bool,
        timeout_s: float | None = None,
        query_vector: list[float] | None = None,
    ) -> list[GraphFact]:
        # Zep embeds on its side with its own model: query_vector is not in its space.
        timeout = timeout_s if timeout_s is not None else self.config.op_timeout_s
        response = self._call(
            lambda o: self.client.memory.search_sessions(
                user_id=self.user_key(user_id),
                text=query,
                search_scope="facts",
                limit=max(limit, 1) * 3,
                request_options=o,
            ),
            timeout=timeout,
            missing_ok=True,
        )
        facts = []
        for result in getattr(response, "results", None) or []:
            fact = result.fact
            if fact is None or not result.session_id or not fact.fact:
                continue
            facts.append(GraphFact(fact.fact, (result.session_id,), float(result.score or 0.0), uuid=fact.uuid_ or ""))
        return facts

    def drop_user(self, user_id: int) -> None:
        self._call(lambda o: self.client.user.delete(self.user_key(user_id), request_options=o), missing_ok=True)

    def health(self) -> GraphHealth:
        started = time.monotonic()
        try:
            self._call(
                lambda o: self.client.user.list_ordered(page_number=1, page_size=1, request_options=o),
                timeout=min(self.config.op_timeout_s, 5),
            )
        except GraphError as exc:
            return GraphHealth(False, self.name, exc.message)
        return GraphHealth(True, self.name, "Zep answered", latency_ms=(time.monotonic() - started) * 1000)

    # -- plumbing ---------------------------------------------------------------------------

    def _ensure_user(self, user: str) -> None:
        if self._call(lambda o: self.client.user.get(user, request_options=o), missing_ok=True) is None:
            self._call(lambda o: self.client.user.add(user_id=user, request_options=o), conflict_ok=True)

    def _call(
        self,
        fn: Callable[[dict], T],
        *,
        timeout: float | None = None,
        missing_ok: bool = False,
        conflict_ok: bool = False,
    ) -> T | None:
        """One request, no SDK retries (the Celery task retries); errors mapped onto GraphError."""
        from zep_python.core.api_error import ApiError

        options: Any = {"max_retries": 0, "timeout_in_seconds": timeout or self.config.op_timeout_s}
        try:
            return fn(options)
        except (httpx.TimeoutException, httpx.TransportError) as exc:
            raise GraphUnavailable(
                f"Zep at {self.config.zep_api_url} could not be reached ({type(exc).__name__})"
            ) from exc
        except ApiError as exc:
            status = exc.status_code or 0
            if status == 404 and missing_ok:
                return None
            if status in (400, 409) and conflict_ok:  # already exists
                return None
            if status in (408, 429) or status >= 500:
                raise GraphUnavailable(f"Zep answered HTTP {status}") from exc
            raise GraphOutputError(f"Zep answered HTTP {status}: {str(exc.body)[:200]}") from exc
        except GraphError:
            raise
        except Exception as exc:  # e.g. a response that does not parse
            raise GraphOutputError(f"{type(exc).__name__}: {exc}") from exc
