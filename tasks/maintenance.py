"""Housekeeping on the beat: temporary conversations are not kept (the chat owns the rule), and deleted
memories are purged once DELETED_RETENTION_DAYS have passed (the engine owns that rule); expired OAuth
tokens go daily."""

from __future__ import annotations

from celery import shared_task

from .base import PipelineTask


@shared_task(base=PipelineTask, name="tasks.maintenance.purge_temporary")
def purge_temporary() -> int:
    """Delete temporary conversations older than 24 h through conversations.services."""
    from conversations.services import purge_temporary as purge

    return purge()


@shared_task(base=PipelineTask, name="tasks.maintenance.purge_deleted")
def purge_deleted() -> int:
    """Purge memories soft-deleted more than DELETED_RETENTION_DAYS ago; returns how many went."""
    from memoryapp.engine.memories.purge import purge_expired

    return purge_expired()


@shared_task(base=PipelineTask, name="tasks.maintenance.clear_oauth_tokens")
def clear_oauth_tokens() -> None:
    """Delete expired OAuth access and refresh tokens and used codes, as django-oauth-toolkit's
    `manage.py cleartokens` does (expired refresh tokens after REFRESH_TOKEN_EXPIRE_SECONDS)."""
    from oauth2_provider.models import clear_expired

    clear_expired()
