"""Delete forever: one memory, all memories, the account. Each asks first.

With htmx the card's button confirms in the browser (`hx-confirm`) and posts; without JavaScript the
same URL answers GET with a confirmation page whose form posts.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

from memoryapp.engine.errors import MemoryNotFound
from memoryapp.engine.memories import listing, purge
from memoryapp.web.forms import AccountDeleteForm
from memoryapp.web.views import CLEARED_KEY


@login_required
@require_http_methods(["GET", "POST"])
def memory_purge(request: HttpRequest, memory_id: int) -> HttpResponse:
    memory = listing.get_memory(request.user, memory_id)
    if memory is None:
        raise Http404("memory not found")
    if request.method == "GET":
        return render(request, "memoryapp/purge_confirm.html", {"m": memory})
    try:
        purge.purge_memory(memory)
    except MemoryNotFound:
        pass  # already gone: what the user asked for
    if request.htmx:
        return HttpResponse("")  # the card swaps itself out
    messages.success(request, _("The memory was deleted forever."))
    return redirect("memories")


@login_required
@require_http_methods(["GET", "POST"])
def memories_purge_all(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return render(request, "memoryapp/purge_confirm.html", {"m": None})
    count = purge.purge_all(request.user)
    request.session.pop(CLEARED_KEY, None)  # nothing left to undo
    messages.success(
        request,
        ngettext("Deleted %(count)d memory forever.", "Deleted %(count)d memories forever.", count) % {"count": count},
    )
    return redirect("memories")


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    form = AccountDeleteForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        purge.delete_account(request.user)
        logout(request)
        return redirect("account-deleted")
    return render(request, "memoryapp/account_delete.html", {"form": form}, status=400 if form.errors else 200)


@require_GET
def account_deleted(request: HttpRequest) -> HttpResponse:
    return render(request, "registration/account_deleted.html")
