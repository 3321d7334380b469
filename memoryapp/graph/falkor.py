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
        url = "redis" + url[len("falkor") :]
    connection = aioredis.Redis.from_url(
        url,
        decode_responses=True,
        socket_connect_timeout=3,
        retry=Retry(NoBackoff(), 1),
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
    except (
        openai.APIConnectionError,
        openai.APITimeoutError,
        openai.RateLimitError,
        openai.InternalServerError,
    ) as exc:
        raise GraphUnavailable(f"the language model could not be reached ({type(exc).__name__})") from exc
    except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
        # Configuration, not this memory: keep it pending until the endpoint, key or model is fixed.
        raise GraphUnavailable(f"the language model refused the request ({type(exc).__name__})") from exc
    except Exception as exc:
        from graphiti_core.llm_client.errors import RateLimitError

        if isinstance(exc, RateLimitError):
            raise GraphUnavailable("the language model is rate-limiting us") from exc
        raise GraphOutputError(f"{type(exc).__name__}: {exc}") from exc


VECTOR_KEYS = frozenset({"fact_embedding", "name_embedding"})


def params_header(**params: Any) -> str:
    """FalkorDB's parameter header (`CYPHER name=value ...`), written as falkordb's client writes it, for
    queries that carry a batch of embeddings: a vector (a list under a key in VECTOR_KEYS, or an item of the
    parameter named `vectors`) is one join of
    float32-exact decimals (the store keeps float32: vecf32), formatted once however many records share it
    (both directions of a fact), and datetimes and NUL bytes are handled per value instead of by walking every
    float. The client's per-float formatting and graphiti's two walks over the parameters took longer than
    FalkorDB took to run a batch's queries."""
    cache: dict[int, str] = {}
    return "CYPHER " + "".join(
        f"`{name}`={_vectors(value, cache) if name == 'vectors' else _value(value, cache)} "
        for name, value in params.items()
    )


def _vectors(vectors: list, cache: dict[int, str]) -> str:
    return "[" + ",".join(_vector(vector, cache) for vector in vectors) + "]"


def _value(value: Any, cache: dict[int, str]) -> str:
    from datetime import datetime

    from falkordb.helpers import stringify_param_value
    from graphiti_core.utils.datetime_utils import ensure_utc

    if isinstance(value, dict):
        return (
            "{"
            + ",".join(
                f"`{key}`:"
                + (_vector(item, cache) if key in VECTOR_KEYS and isinstance(item, list) else _value(item, cache))
                for key, item in value.items()
            )
            + "}"
        )
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_value(item, cache) for item in value) + "]"
    if isinstance(value, datetime):  # as graphiti stores them: ISO-8601 in UTC
        return stringify_param_value(ensure_utc(value).isoformat())
    return stringify_param_value(value)  # text comes from Postgres rows, which cannot hold NUL


def _vector(vector: list, cache: dict[int, str]) -> str:
    key = id(vector)
    if key not in cache:
        cache[key] = "[" + ",".join(map("{:.9g}".format, vector)) + "]"  # 9 digits: exact for float32
    return cache[key]
