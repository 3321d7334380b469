"""Settings › Activity: what each connected app and token read and changed, newest first, filtered by
program and by reads or changes; each row links to the memory's history."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memoryapp import principals
from memoryapp.engine.memories import activity
from memoryapp.lib import clients

PER_PAGE = 50


@login_required
@require_GET
def activity_page(request: HttpRequest) -> HttpResponse:
    seen = set(activity.programs_seen(request.user))
    client = request.GET.get("client", "")
    if client and clients.is_client(client):
        seen.add(client)  # an app with nothing recorded yet (its log is empty; the query is the user's anyway)
    else:
        client = ""
    kind = request.GET.get("kind", "")
    kind = kind if kind in ("reads", "changes") else ""
    events = Paginator(activity.program_events(request.user, client=client, kind=kind), PER_PAGE)
    page = events.get_page(request.GET.get("page"))
    names = principals.client_names(request.user, seen)
    for event in page:
        event.client_name = names.get(event.client, "")  # type: ignore[attr-defined]  # the page's own field
    programs = sorted(((key, names.get(key, key)) for key in seen), key=lambda pair: pair[1].lower())
    return render(
        request,
        "memoryapp/activity.html",
        {
            "page": page,
            "programs": programs,
            "client": client,
            "kind": kind,
            "record_days": settings.ACCESS_RECORD_DAYS,
        },
    )
