"""Chat pages: `home` (/) is the chat page."""

from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("c/", views.conversation_list, name="conversation_list"),
    path("c/new/", views.new, name="conversation_new"),
    path("c/<int:conversation_id>/", views.conversation, name="conversation"),
    path("c/<int:conversation_id>/rename/", views.rename, name="conversation_rename"),
    path("c/<int:conversation_id>/delete/", views.delete, name="conversation_delete"),
    path("c/<int:conversation_id>/messages/<int:message_id>/remember/", views.remember, name="message_remember"),
    path("c/<int:conversation_id>/memories/<int:memory_id>/undo/", views.undo_memory, name="memory_undo"),
    path("c/<int:conversation_id>/memories/notice/close/", views.close_memory_notice, name="memory_notice_close"),
    path("c/<int:conversation_id>/memories/<int:memory_id>/forget/", views.forget_memory, name="chat_memory_forget"),
    path(
        "c/<int:conversation_id>/memories/<int:memory_id>/revert/",
        views.revert_memory_in_chat,
        name="chat_memory_revert",
    ),
    path("c/<int:conversation_id>/keeping/", views.chat_state_put, name="chat_state_put"),
    path("c/<int:conversation_id>/keeping/remove/", views.chat_state_remove, name="chat_state_remove"),
    path("c/<int:conversation_id>/keeping/clear/", views.chat_state_clear, name="chat_state_clear"),
    path("c/<int:conversation_id>/memories/<int:memory_id>/restore/", views.restore_memory, name="chat_memory_restore"),
]
