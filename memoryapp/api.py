"""The REST API (django-ninja): OpenAPI at /api/docs. Routers per app, mounted here."""
from __future__ import annotations

from ninja import NinjaAPI

from conversations.api import router as conversations_router

api = NinjaAPI(title="memoryapp API", version="1", urls_namespace="api")
api.add_router("/conversations", conversations_router)
