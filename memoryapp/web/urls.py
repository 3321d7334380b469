"""Settings pages: /settings/ (toggles, connected apps, tokens), /settings/activity (what they did), /settings/memories (the memories page) and its graph."""

from __future__ import annotations

from django.urls import path

from memoryapp.web import activity, history, purge, views

urlpatterns = [
    path("", views.settings_page, name="settings"),
    path("activity", activity.activity_page, name="activity"),
    path("memories", views.memories_page, name="memories"),
    path("memories/graph", views.memories_graph, name="memories-graph"),
    path("memories/graph/data", views.memories_graph_data, name="memories-graph-data"),
    path("memories/clear", views.memories_clear, name="memories-clear"),
    path("memories/clear/undo", views.memories_undo_clear, name="memories-undo-clear"),
    path("memories/stats", views.memories_stats, name="memories-stats"),
    path("memories/export", views.memories_export, name="memories-export"),
    path("memories/import", views.memories_import, name="memories-import"),
    path("memories/paste", views.memories_paste, name="memories-paste"),
    path("memories/import/<int:job_id>", views.memories_import_job, name="memories-import-job"),
    path("memories/history", history.history_upload, name="memories-history-upload"),
    path("memories/history/parts", history.history_part, name="memories-history-part-first"),
    path("memories/history/parts/<str:token>", history.history_part, name="memories-history-part"),
    path("memories/history/parts/<str:token>/done", history.history_parts_done, name="memories-history-parts-done"),
    path("memories/history/<int:history_id>", history.history_preview, name="memories-history"),
    path("memories/history/<int:history_id>/drop", history.history_drop, name="memories-history-drop"),
    path("memories/history/<int:history_id>/progress", history.history_progress, name="memories-history-progress"),
    path("memories/history/<int:history_id>/undo", history.history_undo, name="memories-history-undo"),
    path("memories/history/<int:history_id>/resume", history.history_resume, name="memories-history-resume"),
    path("memories/suggestions/<int:suggestion_id>/confirm", views.suggestion_confirm, name="suggestion-confirm"),
    path("memories/suggestions/<int:suggestion_id>/dismiss", views.suggestion_dismiss, name="suggestion-dismiss"),
    path("memories/questions/<int:question_id>/<str:answer>", views.question_answer, name="question-answer"),
    path("memories/<int:memory_id>/card", views.memory_card, name="memory-card"),
    path("memories/<int:memory_id>/edit", views.memory_edit, name="memory-edit"),
    path("memories/<int:memory_id>/history", views.memory_history, name="memory-history"),
    path("memories/<int:memory_id>/delete", views.memory_status, {"action": "delete"}, name="memory-delete"),
    path("memories/<int:memory_id>/restore", views.memory_status, {"action": "restore"}, name="memory-restore"),
    path("memories/<int:memory_id>/revert", views.memory_status, {"action": "revert"}, name="memory-revert"),
    path("memories/<int:memory_id>/purge", purge.memory_purge, name="memory-purge"),
    path("memories/purge", purge.memories_purge_all, name="memories-purge-all"),
    path("account/delete", purge.account_delete, name="account-delete"),
    path("account/deleted", purge.account_deleted, name="account-deleted"),
]
