"""Chat pages (owned by the chat work; `home` is the chat page at /)."""
from __future__ import annotations

from django.urls import path

from memoryapp import views

urlpatterns = [
    path("", views.home, name="home"),
]
