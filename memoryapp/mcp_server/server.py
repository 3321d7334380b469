"""The SDK's server, with the two things memoryapp needs of it beyond tools: argument errors worded as the
REST API words them, and a resource read as the token's user."""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import sync_to_async
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources import Resource
from pydantic import ValidationError

from memoryapp.engine.memories import listing
from memoryapp.engine.memories.validation import format_first_error
from memoryapp.engine.recall import access
from memoryapp.lib import clients
from memoryapp.models import Lifecycle

from .calls import client_of, memory_out, token_user

CORE_URI = "memory://core"
MAX_CORE = 200  # the core memories an assistant reads up front; more would flood its context


class CoreMemories(Resource):
    """Listed like any resource; read by `MemoryServer.read_resource`, which knows whose they are."""

    async def read(self) -> str:
        raise ResourceError("read through the server")


class MemoryServer(MCPServer):
    _tool_parameters: dict[str, set[str]] | None = None  # filled on the first call, once every tool is added

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None):
        """The SDK answers bad arguments with pydantic's full report (types, input values, a URL); the
        REST API's one sentence ("limit: Input should be less than or equal to 50") reads better."""
        parameters = await self._parameters(name)
        unknown = sorted(set(arguments) - parameters) if parameters is not None else []
        if unknown:  # the SDK would ignore it; the REST API refuses it, and a misspelt name should be told
            raise ToolError(f"Error executing tool {name}: {unknown[0]}: unknown argument")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                sentence = format_first_error(exc.__cause__)[0]  # prefixed as the SDK prefixes the others
                raise ToolError(f"Error executing tool {name}: {sentence}") from exc.__cause__
            raise

    async def _parameters(self, name: str) -> set[str] | None:
        """The argument names a tool takes (its input schema's properties); None for an unknown tool,
        which the SDK refuses by name."""
        if self._tool_parameters is None:
            self._tool_parameters = {
                tool.name: set(tool.input_schema.get("properties", {})) for tool in await self.list_tools()
            }
        return self._tool_parameters.get(name)

    async def read_resource(self, uri, context: Context | None = None):
        """The SDK gives a static resource no request context; the core memories need the token's user."""
        if str(uri) != CORE_URI or context is None:
            return await super().read_resource(uri, context)
        try:
            user = token_user(context)
        except ToolError as exc:
            raise ResourceError(str(exc)) from None

        def read() -> str:
            with clients.acting_for(client_of(context)):
                return core_memories(user)

        text = await sync_to_async(read)()
        return [ReadResourceContents(content=text, mime_type="application/json")]


def core_memories(user) -> str:
    """The user's current core memories, most important first: what every chat of theirs starts with."""
    memories = (
        listing.filtered(user, listing.MemoryFilter())
        .filter(lifecycle=Lifecycle.CORE)
        .order_by("-importance", "-created_at")[:MAX_CORE]
    )
    access.note_access([m.pk for m in memories])  # handed to an assistant to start a chat with: a use
    return json.dumps({"memories": [memory_out(m) for m in memories]}, ensure_ascii=False)
