"""Housekeeping on the beat: temporary conversations are not kept (the chat owns the rule)."""
from __future__ import annotations

import logging

from celery import shared_task

from .base import PipelineTask

log = logging.getLogger(__name__)


@shared_task(base=PipelineTask, name="tasks.maintenance.purge_temporary")
def purge_temporary() -> int | None:
    """Delete temporary conversations older than 24 h through conversations.services."""
    try:
        from conversations.services import purge_temporary as purge
    except ImportError:  # the chat's service is not there yet: nothing to do, nothing to fail
        log.info("conversations.services.purge_temporary is not available yet; skipped")
        return None
    return purge()
