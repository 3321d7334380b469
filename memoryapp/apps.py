from django.apps import AppConfig


class MemoryappConfig(AppConfig):
    name = "memoryapp"
    verbose_name = "Memories"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers system checks)
