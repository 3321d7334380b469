from __future__ import annotations

from django.contrib import admin, messages

from memoryapp.pipeline.models import ConsolidationRun, ExtractionRun, FailedTask, ForgettingRun, MemorySuggestion

from .base import rerun


@admin.register(FailedTask)
class FailedTaskAdmin(admin.ModelAdmin):
    list_display = ("created_at", "task_name", "args", "error", "resolved_at")
    list_filter = ("task_name", ("resolved_at", admin.EmptyFieldListFilter))
    readonly_fields = ("task_name", "task_id", "args", "kwargs", "error", "traceback", "created_at", "resolved_at")
    actions = ["rerun_selected"]

    @admin.action(description="Re-run the selected tasks")
    def rerun_selected(self, request, queryset) -> None:
        count = 0
        for failed in queryset.filter(resolved_at__isnull=True):
            rerun(failed)
            count += 1
        self.message_user(request, f"Queued {count} task(s) again; a success marks them resolved.", messages.SUCCESS)


@admin.register(ExtractionRun)
class ExtractionRunAdmin(admin.ModelAdmin):
    list_display = ("created_at", "conversation", "status", "candidates", "llm_calls", "seconds", "attempts")
    list_filter = ("status",)
    readonly_fields = [f.name for f in ExtractionRun._meta.fields]


@admin.register(MemorySuggestion)
class MemorySuggestionAdmin(admin.ModelAdmin):
    list_display = ("created_at", "user", "kind", "content", "status")
    list_filter = ("status", "kind")


admin.site.register(ConsolidationRun)
admin.site.register(ForgettingRun)
