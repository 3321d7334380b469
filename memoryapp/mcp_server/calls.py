"""How one MCP call reaches the engine: as the token's user, in Django's sync world, with the engine's
errors (and the write limit) turned into readable MCP tool errors; never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from memoryapp.api.schemas import MemoryOut
from memoryapp.api.throttling import allow_write, too_many_writes
from memoryapp.engine.errors import EngineError, MemoryNotFound
from memoryapp.engine.memories import listing
from memoryapp.engine.memories.validation import format_first_error
from memoryapp.lib import clients
from memoryapp.models import Memory
from memoryapp.principals import READ, WRITE

USER_KEY = "memoryapp.user"  # where memoryapp/mcp_server/http.py leaves the token's user in the ASGI scope
SCOPES_KEY = "memoryapp.scopes"  # and the scopes it was granted (a personal token has both)
CLIENT_KEY = "memoryapp.client"  # and the program it came through, for the audit trail (lib/clients.py)

READ_ONLY = (
    "this connection may only read memories; to add, change or delete them, connect again and allow "
    "changes on the consent page"
)

T = TypeVar("T")


def token_user(ctx: Context, *, write: bool = False) -> Any:
    """The user whose Bearer token authenticated this HTTP request (http.py refuses any other), once the
    token's scopes allow the call: memories:read for every call, memories:write for a write."""
    scope = _scope(ctx)
    user = scope.get(USER_KEY)
    if user is None:  # not through http.py: an in-process client; nobody to act for
        raise ToolError("not authenticated")
    granted = scope.get(SCOPES_KEY, frozenset())
    if READ not in granted:
        raise ToolError("this connection may not read memories")
    if write and WRITE not in granted:
        raise ToolError(READ_ONLY)
    return user


def _scope(ctx: Context) -> dict:
    request = ctx.request_context.request
    return request.scope if request is not None else {}


def client_of(ctx: Context) -> str:
    """The program the request came through (lib/clients.py), as http.py found it from the token."""
    return _scope(ctx).get(CLIENT_KEY, "")


async def run(ctx: Context, work: Callable[[Any], T], *, write: bool = False) -> T:
    """`work(user)` in a worker thread, as the REST views run; a write first needs the memories:write scope
    and counts against the API's per-user write limit (the same counter the REST routes use)."""
    user = token_user(ctx, write=write)
    client = client_of(ctx)

    def as_user() -> T:
        if write and not allow_write(user):
            raise ToolError(too_many_writes())
        with clients.acting_for(client):
            return work(user)

    try:
        return await sync_to_async(as_user)()
    except EngineError as exc:  # validation (the secrets check too), conflict, not found: one sentence
        raise ToolError(exc.message) from None
    except ValidationError as exc:  # the REST schemas' own rules, worded as the REST API words them
        raise ToolError(format_first_error(exc)[0]) from None


def memory_of(user, memory_id: int) -> Memory:
    """The user's memory; another user's id is missing, as over REST."""
    memory = listing.get_memory(user, memory_id)
    if memory is None:
        raise MemoryNotFound(f"memory {memory_id} not found")
    return memory


def memory_out(memory: Memory) -> dict:
    """A memory as the REST API shows it (the same schema, so the two cannot drift)."""
    return MemoryOut.from_orm(memory).model_dump(mode="json")


def written(result) -> dict:
    return {"action": result.action, "memory": memory_out(result.memory)}
