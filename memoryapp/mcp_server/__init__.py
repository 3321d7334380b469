"""The MCP server: memoryapp's memories as tools and a resource for any MCP client (Claude Desktop,
Cursor, ...), over streamable HTTP at /mcp in the Daphne process that serves the app (docs/mcp.md).

An edge beside the REST API (memoryapp/api/routes.py): the same Bearer tokens, the same engine functions, the
same write limit. `http` is the ASGI side (auth, routing, starting the SDK), `tools` what a client can
call, `calls` how a call reaches the engine and how its errors reach the client.
"""
