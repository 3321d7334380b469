"""ASGI entry point: HTTP through Django, /mcp through the MCP server (memoryapp/mcp_server), websockets
through Channels; all served by Daphne, in one process."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from memoryapp.engine.warmup import warm_chat, warm_embedder  # noqa: E402

warm_embedder()  # before the event loop serves anyone
warm_chat()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from memoryapp.mcp_server.http import with_mcp  # noqa: E402
from memoryapp.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": with_mcp(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
