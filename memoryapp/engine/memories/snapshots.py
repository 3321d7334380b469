"""The JSON kept in MemoryEvent.before/after and sent with `memory.*` events."""

from __future__ import annotations

from memoryapp.models import Memory


def snapshot(memory: Memory) -> dict:
    return {
        "id": memory.pk,
        "content": memory.content,
        "kind": memory.kind,
        "lifecycle": memory.lifecycle,
        "importance": round(memory.importance, 4),
        "confidence": round(memory.confidence, 4),
        "status": memory.status,
        "access_count": memory.access_count,
        "valid_from": memory.valid_from.isoformat() if memory.valid_from else None,
        "valid_until": memory.valid_until.isoformat() if memory.valid_until else None,
        "source": memory.source,
        "source_conversation_id": memory.source_conversation_id,
        "cues": list(memory.cues),
    }
