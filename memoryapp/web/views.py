"""Pages: thin views that call the engine or the ORM and render a template.

The memories page works without JavaScript (GET filters, POST forms, redirects); with htmx the same
URLs answer with the fragment to swap (`request.htmx`, from django-htmx's middleware).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memoryapp import accounts, principals
from memoryapp.api import auth
from memoryapp.engine import memory_map
from memoryapp.engine.errors import MemoryConflict, MemoryNotFound, MemoryValidationError
from memoryapp.engine.history import importing
from memoryapp.engine.learning import extraction
from memoryapp.engine.memories import conflicts, imports, listing, pasted, transfer, write
from memoryapp.models import ApiToken, Memory, MemoryKind, MemorySettings, MemoryStatus
from memoryapp.pipeline.models import MemorySuggestion, SuggestionStatus
from memoryapp.web import language
from memoryapp.web.forms import AccountDeleteForm, ApiTokenForm, MemoryEditForm, MemoryFilterForm, MemorySettingsForm

MAX_IMPORT_BYTES = 5 * 1024 * 1024
CLEARED_KEY = "memories_cleared_ids"
MAX_SUGGESTIONS_SHOWN = 20


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """The form while sign-up is available (accounts.py: the first account, SIGNUP=open or approval);
    when closed, how to get an account instead."""
    if request.user.is_authenticated:
        return redirect("home")
    state = accounts.signup_state()
    if not state.available:
        return render(
            request, "registration/signup.html", {"state": state}, status=403 if request.method == "POST" else 200
        )
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            state = accounts.create_account(form.save(commit=False))
        except accounts.SignupClosed:  # the first account was made meanwhile, and sign-up is closed
            return render(request, "registration/signup.html", {"state": accounts.signup_state()}, status=403)
        if state.needs_approval:
            return render(request, "registration/signup_pending.html", {"username": form.cleaned_data["username"]})
        login(request, form.instance)
        return redirect("home")
    return render(
        request, "registration/signup.html", {"form": form, "state": state}, status=400 if form.errors else 200
    )


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for compose and the stack test: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


# --- Settings > Memories -----------------------------------------------------------------------


def _own(request: HttpRequest, memory_id: int) -> Memory:
    memory = listing.get_memory(request.user, memory_id)
    if memory is None:
        raise Http404("memory not found")
    return memory


def _back(request: HttpRequest) -> HttpResponse:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = reverse("memories")
    return redirect(target)


def _card(request: HttpRequest, memory: Memory, **extra) -> HttpResponse:
    return render(request, "memoryapp/_memory_card.html", {"m": memory, **extra})


def _changed_card(request: HttpRequest, memory: Memory, **extra) -> HttpResponse:
    """The card after an action, with the counts above the list out of band: they change with it."""
    return render(
        request, "memoryapp/_memory_changed.html", {"m": memory, "stats": listing.stats(request.user), **extra}
    )


@login_required
@require_GET
def memories_page(request: HttpRequest) -> HttpResponse:
    form = MemoryFilterForm(request.GET)
    try:
        flt = listing.MemoryFilter.with_range(**form.filter_values())
        cursor = request.GET.get("cursor") or None
        page = listing.list_memories(
            request.user,
            flt,
            cursor=cursor,
            count=cursor is None,
            limit=listing.SEARCH_PAGE_SIZE if flt.q.strip() else listing.DEFAULT_PAGE_SIZE,
        )
    except MemoryValidationError:
        flt, page = listing.MemoryFilter(), listing.MemoryPage()
    params = request.GET.copy()
    params.pop("cursor", None)
    params.pop("focus", None)
    context = {
        "page": page,
        "form": form,
        "flt": flt,
        "params": params.urlencode(),
        "retention_days": settings.DELETED_RETENTION_DAYS,
    }
    if request.htmx and request.GET.get("cursor"):
        return render(request, "memoryapp/_memory_page.html", context)
    focus = request.GET.get("focus", "")
    focused = listing.get_memory(request.user, int(focus)) if focus.isdigit() else None
    if focused is not None and focused not in page.memories:
        page.memories.insert(0, focused)  # the chat links here: show it even when it is further down
    cleared = request.session.get(CLEARED_KEY) or []
    context.update(
        focus=focused.pk if focused else None,
        stats=listing.stats(request.user),
        cleared_count=len(cleared),
        filtered=bool(
            request.GET.get("q")
            or request.GET.get("kind")
            or request.GET.get("range")
            or request.GET.get("source")
            or flt.at
            or flt.status != MemoryStatus.ACTIVE
        ),
        suggestions=list(
            MemorySuggestion.objects.filter(user=request.user, status=SuggestionStatus.PENDING)
            .select_related("conversation")
            .order_by("-created_at", "-id")[:MAX_SUGGESTIONS_SHOWN]
        ),
        questions=list(conflicts.open_questions(request.user)[:MAX_SUGGESTIONS_SHOWN]),
        history=importing.shown(request.user),
    )
    return render(request, "memoryapp/memories.html", context)


@login_required
@require_GET
def memories_graph(request: HttpRequest) -> HttpResponse:
    """The memory graph page; graph.js fetches its nodes and links from memories_graph_data."""
    kinds = [(kind.value, kind.label, kind.icon) for kind in MemoryKind]
    return render(request, "memoryapp/memory_graph.html", {"kinds": kinds, "strings": _graph_strings()})


# graph.js counts in the browser, which has no gettext: it gets each count's forms keyed by plural category
# and picks one with Intl.PluralRules for the page's language. One number per category the shipped languages
# use (English: one, other; Chinese: other); a language with more categories adds its own here.
PLURAL_SAMPLES = {"one": 1, "other": 2}


def _plural_forms(forms: Callable[[int], str]) -> dict[str, str]:
    return {category: forms(n) for category, n in PLURAL_SAMPLES.items()}


def _graph_strings() -> dict[str, str | dict[str, str]]:
    """What graph.js writes, in the page's language; {placeholders} are filled there."""
    return {
        # Translators: filled with the three counts below, e.g. "Shown: 4 memories (1 replaced), 5 links."
        "summary": _("Shown: {memories} ({replaced}), {links}."),
        "memories": _plural_forms(lambda n: ngettext("{count} memory", "{count} memories", n)),
        "replacedCount": _plural_forms(lambda n: ngettext("{count} replaced", "{count} replaced", n)),
        "links": _plural_forms(lambda n: ngettext("{count} link", "{count} links", n)),
        "now": _("Now"),
        "current": _("Current"),
        "replaced": _("Replaced"),
        "replaces": _("Replaces:"),
        "replacedBy": _("Replaced by:"),
        "fromChat": _("From the chat:"),
        "shares": _("Shares:"),
        "mentions": _("Mentions:"),
        "untitled": _("Untitled chat"),
        "chat": _("Chat:"),
        "name": _("Shared name:"),
        "entity": _("Person, place or thing:"),
        "separator": _(", "),
        "linked": _("Linked memories:"),
        "openChat": _("Open the chat"),
        "truncated": _("Only the newest 2,000 memories are drawn."),
        "graphDown": _("The graph did not answer in time: the people, places and things it found are not drawn."),
        "updated": _("Updated: a memory changed elsewhere."),
        "failed": _("The graph could not be loaded. Reload the page to try again."),
        "empty": _("No memories yet. They appear here as you chat."),
    }


@login_required
@require_GET
def memories_graph_data(request: HttpRequest) -> JsonResponse:
    """Every node and link of the user's memory graph, with validity times: the page filters and replays
    them (as of any moment) in the browser, so a slider step asks the server nothing."""
    return JsonResponse(memory_map.build(request.user))


@login_required
@require_GET
def memories_stats(request: HttpRequest) -> HttpResponse:
    """The counts above the list, refetched when a memory changes elsewhere (memories.js)."""
    return render(request, "memoryapp/_stats.html", {"stats": listing.stats(request.user)})


@login_required
@require_POST
def question_answer(request: HttpRequest, question_id: int, answer: str) -> HttpResponse:
    """The user's answer to "does the newer memory replace the older?": replace, or keep both."""
    try:
        conflicts.resolve(conflicts.get_question(request.user, question_id), answer)
    except MemoryNotFound:
        raise Http404 from None
    except (MemoryValidationError, MemoryConflict) as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Replaced: the older memory is kept in its history.")
            if answer == "replace"
            else _("Both memories are kept."),
        )
    return redirect("memories")


def _pending_suggestion(request: HttpRequest, suggestion_id: int) -> MemorySuggestion:
    """The user's own pending suggestion; anyone else's, or one already decided, is a 404."""
    return get_object_or_404(MemorySuggestion, pk=suggestion_id, user=request.user, status=SuggestionStatus.PENDING)


@login_required
@require_POST
def suggestion_confirm(request: HttpRequest, suggestion_id: int) -> HttpResponse:
    suggestion = _pending_suggestion(request, suggestion_id)
    try:
        extraction.confirm_suggestion(suggestion)
    except (MemoryValidationError, MemoryConflict) as exc:
        messages.error(request, exc.message)
    except ValueError:  # decided meanwhile (another tab, a double click)
        messages.error(request, _("This suggestion was already handled."))
    else:
        messages.success(request, _("Suggestion saved as a memory."))
    return redirect("memories")


@login_required
@require_POST
def suggestion_dismiss(request: HttpRequest, suggestion_id: int) -> HttpResponse:
    suggestion = extraction.dismiss_suggestion(_pending_suggestion(request, suggestion_id))
    if suggestion.status == SuggestionStatus.DISMISSED:
        messages.success(request, _("Suggestion dismissed."))
    else:
        messages.error(request, _("This suggestion was already handled."))
    return redirect("memories")


@login_required
@require_GET
def memory_card(request: HttpRequest, memory_id: int) -> HttpResponse:
    return _card(request, _own(request, memory_id))


@login_required
@require_POST
def memory_status(request: HttpRequest, memory_id: int, action: str) -> HttpResponse:
    memory = _own(request, memory_id)
    error = ""
    try:
        if action == "revert":  # undo a change: the version it replaced is current again, in its place
            replaced = list(memory.supersedes.values_list("pk", flat=True))
            memory = write.revert_memory(memory).memory
            memory = Memory.objects.filter(pk__in=replaced, valid_until__isnull=True).first() or memory
        else:
            memory = (write.restore_memory if action == "restore" else write.delete_memory)(memory).memory
    except MemoryConflict as exc:
        error = exc.message
    if request.htmx:
        return _changed_card(request, memory, error=error)
    if error:
        messages.error(request, error)
    return _back(request)


@login_required
@require_http_methods(["GET", "POST"])
def memory_edit(request: HttpRequest, memory_id: int) -> HttpResponse:
    memory = _own(request, memory_id)
    initial = {
        "content": memory.content,
        "kind": memory.kind,
        "importance": round(memory.importance * 100),
        "cues": "\n".join(memory.cues),
    }
    form = MemoryEditForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            result = write.edit_memory(memory, form.changes())
        except (MemoryValidationError, MemoryConflict) as exc:
            form.add_error(None, exc.message)
        else:
            return _changed_card(request, result.memory) if request.htmx else _back(request)
    template = "memoryapp/_memory_edit.html" if request.htmx else "memoryapp/memory_edit.html"
    return render(request, template, {"m": memory, "form": form})


@login_required
@require_GET
def memory_history(request: HttpRequest, memory_id: int) -> HttpResponse:
    memory = _own(request, memory_id)
    events = listing.history_with_chats(request.user, memory)
    names = principals.client_names(request.user, {event.client for event in events if event.client})
    for event in events:
        event.client_name = names.get(event.client, "")  # type: ignore[attr-defined]  # the page's own field
    template = "memoryapp/_memory_history.html" if request.htmx else "memoryapp/memory_history.html"
    return render(request, template, {"m": memory, "events": events})


@login_required
@require_POST
def memories_clear(request: HttpRequest) -> HttpResponse:
    """Soft-delete every current memory; the ids stay in the session for one undo."""
    cleared = write.delete_all(request.user.pk)  # one event to the user's open pages, with the count
    request.session[CLEARED_KEY] = cleared
    messages.success(request, _("Cleared %(count)d memories.") % {"count": len(cleared)})
    return redirect("memories")


@login_required
@require_POST
def memories_undo_clear(request: HttpRequest) -> HttpResponse:
    ids = request.session.pop(CLEARED_KEY, None) or []
    restored = write.restore_many(request.user.pk, ids)  # one added again meanwhile stays deleted: that copy is kept
    messages.success(request, _("Restored %(count)d memories.") % {"count": len(restored)})
    return redirect("memories")


@login_required
@require_GET
def memories_export(request: HttpRequest) -> HttpResponse:
    file = transfer.export_file(request.user, request.GET.get("format", "json"))
    response = HttpResponse(file.body, content_type=file.content_type)
    response["Content-Disposition"] = f'attachment; filename="{file.filename}"'
    return response


@login_required
@require_POST
def memories_import(request: HttpRequest) -> HttpResponse:
    """Check every row now; a good file is written by a job, whose progress and report the page's live
    connection shows (memoryapp/web/consumers.py: memory_progress)."""
    upload = request.FILES.get("file")
    queued, problem = None, ""
    if upload is None:
        problem = _("Choose a JSON file to import.")
    elif upload.size > MAX_IMPORT_BYTES:
        problem = _("The file is larger than 5 MB.")
    else:
        try:
            queued = imports.queue_import(request.user, json.loads(upload.read().decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError):
            problem = _("The file is not valid JSON.")
        except MemoryValidationError as exc:
            problem = exc.message
    if queued is not None and queued.ok:
        if request.htmx:  # the report waits here for the job's last progress line
            return render(request, "memoryapp/_import_report.html", {"job": queued.job}, status=202)
        messages.info(
            request,
            ngettext(
                "Importing %(count)d memory: it appears here once written.",
                "Importing %(count)d memories: they appear here once all are written.",
                queued.job.total,
            )
            % {"count": queued.job.total},
        )
        return redirect("memories")
    context = {"report": queued, "problem": problem}
    if request.htmx:
        return render(request, "memoryapp/_import_report.html", context)
    return render(request, "memoryapp/import_result.html", context, status=422)


@login_required
@require_POST
def memories_paste(request: HttpRequest) -> HttpResponse:
    """Saved memories pasted as text (what ChatGPT or Claude list when asked): first a preview of each line,
    its day and kind, and what cannot be kept; "Save" writes the good ones."""
    text = request.POST.get("text", "")
    try:
        lines = pasted.read_lines(text)
    except MemoryValidationError as exc:
        return render(request, "memoryapp/paste_preview.html", {"problem": exc.message, "text": text}, status=422)
    if "save" not in request.POST:
        return render(request, "memoryapp/paste_preview.html", {"lines": lines, "text": text})
    report = pasted.save_lines(request.user, lines)
    messages.success(
        request,
        _("Saved %(created)d new memories; %(merged)d were already here, %(superseded)d replaced older ones.")
        % {"created": report.created, "merged": report.merged, "superseded": report.superseded},
    )
    return redirect("memories")


@login_required
@require_GET
def memories_import_job(request: HttpRequest, job_id: int) -> HttpResponse:
    """The report of an import job, polled by the page that started it: "Importing…" while it runs (and
    polls again), then what it wrote. The live connection usually brings the report first; this is the
    page's way when that connection is down, or when the job finished before the page was listening."""
    job = imports.job_of(request.user, job_id)
    if job is None:
        raise Http404
    return render(request, "memoryapp/_import_report.html", {"job": job})


# --- Settings ----------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    prefs = MemorySettings.for_user(request.user)
    form = MemorySettingsForm(instance=prefs, initial={"language": language.chosen(request)})
    token_form = ApiTokenForm()
    new_secret = ""
    if request.method == "POST" and "save_settings" in request.POST:
        form = MemorySettingsForm(request.POST, instance=prefs)
        if form.is_valid():
            form.save()
            if prefs.language:  # the page goes on in the language just saved; "" lets the browser decide
                translation.activate(prefs.language)
            messages.success(request, _("Settings saved."))
            return language.remember(redirect("settings"), prefs.language)
    elif request.method == "POST" and "create_token" in request.POST:
        token_form = ApiTokenForm(request.POST)
        if token_form.is_valid():
            _token, new_secret = auth.create_token(request.user, token_form.cleaned_data["name"])
            token_form = ApiTokenForm()
    elif request.method == "POST" and "disconnect_app" in request.POST:
        app_id = request.POST.get("disconnect_app", "")
        if app_id.isdigit() and principals.disconnect_app(request.user, int(app_id)):
            messages.success(request, _("The app was disconnected: it must ask you again before it reads anything."))
        return redirect("settings")
    elif request.method == "POST" and "revoke_token" in request.POST:
        token_id = request.POST.get("revoke_token", "")
        if token_id.isdigit() and auth.revoke_token(request.user, int(token_id)):
            messages.success(request, _("Token revoked."))
        return redirect("settings")
    tokens = ApiToken.objects.filter(user=request.user)
    waiting = accounts.waiting_accounts().count() if request.user.is_staff else 0
    return render(
        request,
        "memoryapp/settings.html",
        {
            "form": form,
            "token_form": token_form,
            "tokens": tokens,
            "connected_apps": principals.connected_apps(request.user),
            "new_secret": new_secret,
            "waiting_accounts": waiting,
            "delete_form": AccountDeleteForm(request.user),
        },
    )
