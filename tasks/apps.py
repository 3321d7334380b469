from __future__ import annotations

from django.apps import AppConfig


class TasksConfig(AppConfig):
    """The Celery tasks that run the engine's jobs (engine/jobs.py) and the beat's; the rows they keep, and
    their admin section "Background jobs", belong to memoryapp.pipeline."""

    name = "tasks"
    label = "tasks"
    verbose_name = "Celery tasks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The pipeline's task modules import models, so they register here rather than in tasks/__init__.py
        # (which Django imports before the models are ready); the worker runs django.setup() first.
        from memoryapp.engine.jobs import Job, register

        from . import (  # noqa: F401
            access,
            chat_end,
            consolidation,
            cues,
            extraction,
            forgetting,
            graph_sync,
            imports,
            learning,
            maintenance,
            review,
        )

        # The engine asks for work by kind (engine/jobs.py); these tasks run each kind.
        register(
            {
                Job.EXTRACT: extraction.extract_messages,
                Job.CONSOLIDATE: consolidation.consolidate_conversation,
                Job.FINISH_CHAT: chat_end.finish_chat,
                Job.FORGET: forgetting.forget_user,
                Job.SYNC_MEMORY: graph_sync.sync_memory,
                Job.PURGE_EPISODE: graph_sync.purge_episode,
                Job.DROP_USER: graph_sync.drop_user,
                Job.WRITE_CUES: cues.write_cues,
                Job.IMPORT: imports.import_memories,
                Job.LEARN: learning.learn_conversation,
                Job.LEARN_HISTORY: learning.learn_history,
            }
        )

        # Every committed memory change queues its graph sync: the engine sends the signal and knows no task.
        from memoryapp.engine.memories.signals import all_memories_purged, memory_changed

        from .receivers import on_all_memories_purged, on_memory_changed

        memory_changed.connect(on_memory_changed, dispatch_uid="tasks.receivers.on_memory_changed")
        all_memories_purged.connect(on_all_memories_purged, dispatch_uid="tasks.receivers.on_all_memories_purged")
