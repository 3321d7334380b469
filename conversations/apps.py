from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"

    def ready(self) -> None:
        # A chat's working memory goes with the chat, however its row goes (engine/chat_state/ending.py).
        from django.db.models.signals import post_delete

        from memoryapp.engine.chat_state.ending import chat_deleted

        from .models import Conversation

        post_delete.connect(chat_deleted, sender=Conversation, dispatch_uid="chat_state.chat_deleted")
