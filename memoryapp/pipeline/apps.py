from django.apps import AppConfig


class PipelineConfig(AppConfig):
    """What ran on which window, what waits for the user, what failed (the jobs live in tasks/)."""

    name = "memoryapp.pipeline"
    label = "pipeline"
    verbose_name = "Background jobs"
    default_auto_field = "django.db.models.BigAutoField"
