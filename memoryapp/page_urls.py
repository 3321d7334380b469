"""Settings pages: /settings/ (toggles, tokens) and /settings/memories (owned by the memories-page work)."""
from __future__ import annotations

urlpatterns: list = []
