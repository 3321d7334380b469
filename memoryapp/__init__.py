"""memoryapp: a chat assistant whose long-term memory the user can see and control."""

from memoryapp.celery import app as celery_app

__all__ = ["celery_app"]
