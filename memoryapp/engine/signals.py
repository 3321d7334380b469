"""`memory_changed` is sent after a memory change commits.

Receivers (graph sync, realtime) run outside the writer's transaction, so they never see rolled-back
rows and can never fail a write. Arguments: memory_id, user_id, action (an EventAction value).
"""
from __future__ import annotations

from django.dispatch import Signal

memory_changed = Signal()

# Sent after commit when every memory of a user was purged (clear all forever, account deleted):
# the graph drops the user's group. Arguments: user_id.
all_memories_purged = Signal()
