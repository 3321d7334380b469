"""FalkorDB plumbing for the graphiti adapter: a fail-fast async client and one error mapping."""
from __future__ import annotations

import logging
from typing import Any

from .errors import GraphError, GraphOutputError, GraphUnavailable


class _FirstLineOnly(logging.Filter):
    """graphiti logs every failed FalkorDB query with its parameters, embeddings included
    (kilobytes per line during an outage); keep the first line, we log our own summary."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        record.msg, record.args = message.split("\n", 1)[0][:300], None
        return True


logging.getLogger("graphiti_core.driver.falkordb_driver").addFilter(_FirstLineOnly())


def connect(url: str) -> Any:
    """An async FalkorDB client that fails fast: one quick reconnect, no backoff.

    FalkorDB's own constructor probes for cluster mode with a *sync* Redis client and redis-py's
    default backoff (about 5 s against a closed port); a standalone server needs no probe.
    """
    import redis.asyncio as aioredis
    from falkordb.asyncio import FalkorDB
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    class _StandaloneFalkorDB(FalkorDB):
        def __init__(self, connection: Any) -> None:  # what FalkorDB.__init__ sets, minus the probe
            self.connection = connection
            self.flushdb = connection.flushdb
            self.execute_command = connection.execute_command

    if url.startswith(("falkor://", "falkors://")):
        url = "redis" + url[len("falkor"):]
    connection = aioredis.Redis.from_url(
        url, decode_responses=True, socket_connect_timeout=3, retry=Retry(NoBackoff(), 1),
    )
    return _StandaloneFalkorDB(connection)


async def guard(coro: Any) -> Any:
    """Map whatever the stores and the model raise onto GraphUnavailable (retry) or GraphOutputError."""
    import openai
    from redis import exceptions as redis_errors

    try:
        return await coro
    except GraphError:
        raise
    except (redis_errors.ConnectionError, redis_errors.TimeoutError, ConnectionError, TimeoutError, OSError) as exc:
        raise GraphUnavailable(f"FalkorDB could not be reached ({exc})") from exc
    except (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError,
            openai.InternalServerError) as exc:
        raise GraphUnavailable(f"the language model could not be reached ({type(exc).__name__})") from exc
    except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
        # Configuration, not this memory: keep it pending until the endpoint, key or model is fixed.
        raise GraphUnavailable(f"the language model refused the request ({type(exc).__name__})") from exc
    except Exception as exc:
        from graphiti_core.llm_client.errors import RateLimitError

        if isinstance(exc, RateLimitError):
            raise GraphUnavailable("the language model is rate-limiting us") from exc
        raise GraphOutputError(f"{type(exc).__name__}: {exc}") from exc
