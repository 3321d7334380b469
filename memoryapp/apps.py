from django.apps import AppConfig
from django.db.backends.signals import connection_created


class MemoryappConfig(AppConfig):
    name = "memoryapp"
    verbose_name = "Memories"

    def ready(self) -> None:
        from memoryapp import checks  # noqa: F401  (registers system checks)
        from memoryapp.engine.recall.session import configure_session

        connection_created.connect(configure_session, dispatch_uid="memoryapp.configure_session")

        # Every committed memory change reaches the user's open pages: the one receiver that publishes.
        from memoryapp.engine.memories.signals import memory_changed
        from memoryapp.events import publish_memory_change

        memory_changed.connect(publish_memory_change, dispatch_uid="memoryapp.events.publish_memory_change")
