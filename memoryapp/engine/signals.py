"""`memory_changed` is sent after a memory change commits.

Receivers (graph sync, realtime) run outside the writer's transaction, so they never see rolled-back
rows and can never fail a write. Arguments: memory_id, user_id, action (an EventAction value).
"""
from __future__ import annotations

from django.dispatch import Signal

memory_changed = Signal()
