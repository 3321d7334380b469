"""REST routes for conversations and chat, mounted at /api/conversations by memoryapp/api.py."""
from __future__ import annotations

from ninja import Router

router = Router(tags=["conversations"])
