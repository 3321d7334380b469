"""The OAuth 2.1 authorization server that lets a remote MCP client (Claude.ai, ChatGPT, any client of the
MCP authorization spec) sign its user in and call /mcp as them: django-oauth-toolkit's views at the
origin's root, with memoryapp's consent page and registration rules (docs/mcp.md, docs/security.md)."""
