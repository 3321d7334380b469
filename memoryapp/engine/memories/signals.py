"""`memory_changed` is sent after a memory change commits: the one road every change travels.

Receivers (graph sync in tasks/receivers.py, the user's open pages in memoryapp/events.py) run outside
the writer's transaction, so they never see rolled-back rows and can never fail a write. Arguments:
user_id, memory_id (None for a bulk write), action (an EventAction value), event (the MemoryEventType an
open page hears, or None), count (how many memories a bulk write touched), and for a purge episode_id.
Sent by engine.memories.write.announce only.
"""

from __future__ import annotations

from django.dispatch import Signal

memory_changed = Signal()

# Sent after commit when every memory of a user was purged (clear all forever, account deleted):
# the graph drops the user's group. Arguments: user_id.
all_memories_purged = Signal()
