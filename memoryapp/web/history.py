"""Import from ChatGPT or Claude (engine/history/importing.py), on the memories page: the upload, its preview
(conversations the user may untick, a date range, "also keep these conversations"), the progress line the
page polls while the worker learns, and Undo."""

from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.dateparse import parse_date
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from memoryapp.engine.errors import MemoryConflict, MemoryValidationError
from memoryapp.engine.history import importing
from memoryapp.engine.history.exports import (
    DEFAULT_LIMITS,
    ExportDamaged,
    ExportError,
    ExportTooLarge,
    ExportTruncated,
    NotAnExport,
)
from memoryapp.engine.history.formats import ExportFormat
from memoryapp.lib import uploads
from memoryapp.pipeline.models import HistoryImport, HistoryImportStatus


def _problem(exc: ExportError) -> str:
    """The sentence for the user, in their language; the reader's own (English, naming the place) follows."""
    if isinstance(exc, ExportTooLarge):
        return _("The file is too large: an export over 2 GB is refused.")
    if isinstance(exc, ExportTruncated):
        return _("The file was cut short, so nothing was imported. Download the export again.")
    if isinstance(exc, ExportDamaged):
        return _("The file is damaged, so nothing was imported. Download the export again.")
    if isinstance(exc, NotAnExport):
        return _(
            "This file is neither a ChatGPT nor a Claude export: upload the .zip they send, or its conversations.json."
        )
    return _("The file could not be read as an export.")


@login_required
@require_POST
def history_upload(request: HttpRequest) -> HttpResponse:
    """Keep the upload (Django spools a large one to disk) and show its preview; a file that is not an
    export is one sentence, and nothing is kept."""
    upload = request.FILES.get("export")
    if upload is None:
        problem, detail = _("Choose the .zip or conversations.json that ChatGPT or Claude exported."), ""
    elif upload.size and upload.size > DEFAULT_LIMITS.max_file_bytes:
        problem, detail = _problem(ExportTooLarge("")), ""
    else:
        try:
            job = importing.receive(request.user, upload, upload.name or "export")
        except ExportError as exc:
            problem, detail = _problem(exc), str(exc)
        else:
            return redirect("memories-history", history_id=job.pk)
    # The page itself says what is wrong, as a form re-shown with its error does.
    return render(request, "memoryapp/history_preview.html", {"problem": problem, "detail": detail})


# A part of an upload sent by the page's script: under DATA_UPLOAD_MAX_MEMORY_SIZE, and small enough that
# the web server never holds much of a large export (Daphne reads a request body whole before the app does).
PART_BYTES = 8 * 2**20


@login_required
@require_POST
def history_part(request: HttpRequest, token: str = "") -> JsonResponse:
    """One part of an export the page sends in parts (static/js/memories.js): the first (no token) starts
    the upload; `?offset=` says where each part goes. Answers the upload's token and its size so far."""
    user_id = request.user.pk
    if not token:
        token = uploads.start_parts(user_id)
    path = uploads.parts_path(user_id, token)
    if path is None:
        return JsonResponse({"problem": _("This upload is gone; choose the file again.")}, status=404)
    data = request.body
    if len(data) > PART_BYTES:
        return JsonResponse({"problem": _("The upload could not be read; try again.")}, status=413)
    try:
        offset = int(request.GET.get("offset", "0"))
        size = uploads.append_part(path, offset, data)
    except ValueError:
        return JsonResponse({"problem": _("The upload could not be read; try again.")}, status=409)
    if size > DEFAULT_LIMITS.max_file_bytes:
        uploads.remove(path)
        return JsonResponse({"problem": _problem(ExportTooLarge(""))}, status=413)
    return JsonResponse({"token": token, "size": size})


@login_required
@require_POST
def history_parts_done(request: HttpRequest, token: str) -> JsonResponse:
    """The last part arrived: the upload is previewed as a whole one is; answers where its preview is."""
    path = uploads.parts_path(request.user.pk, token)
    if path is None:
        return JsonResponse({"problem": _("This upload is gone; choose the file again.")}, status=404)
    try:
        job = importing.receive_kept(request.user, path, request.POST.get("name", "")[:255] or "export")
    except ExportError as exc:  # read, and not an export: an answer the page shows, as the form's page does
        return JsonResponse({"problem": _problem(exc), "detail": str(exc)})
    return JsonResponse({"preview": reverse("memories-history", kwargs={"history_id": job.pk})})


def _job(request: HttpRequest, history_id: int) -> HistoryImport:
    job = importing.job_of(request.user, history_id)
    if job is None:
        raise Http404("import not found")
    return job


def _day(value: str) -> date | None:
    try:
        return parse_date(value.strip()) if value.strip() else None
    except ValueError:
        return None


@login_required
@require_http_methods(["GET", "POST"])
def history_preview(request: HttpRequest, history_id: int) -> HttpResponse:
    """The preview: what the export holds, each conversation ticked or not; Start queues the learning."""
    job = _job(request, history_id)
    if job.status != HistoryImportStatus.PREVIEW:
        return redirect("memories")
    problem = ""
    if request.method == "POST":
        since, until = _day(request.POST.get("since", "")), _day(request.POST.get("until", ""))
        bad_day = any(
            request.POST.get(name, "").strip() and day is None for name, day in (("since", since), ("until", until))
        )
        try:
            if bad_day:
                raise MemoryValidationError(_("Enter the days as YYYY-MM-DD."))
            importing.start(
                job,
                ticked=request.POST.getlist("conversation"),
                since=since,
                until=until,
                keep_chats=request.POST.get("keep_chats") == "on",
            )
        except MemoryValidationError as exc:
            if exc.field == "since":
                problem = _("The first day is after the last day.")
            else:
                problem = _("Tick at least one conversation within those days.") if exc.field else exc.message
        except MemoryConflict:
            return redirect("memories")
        else:
            return redirect("memories")
    rows = importing.rows_of(job)
    ticked = set(request.POST.getlist("conversation")) if request.method == "POST" else None
    context = {
        "job": job,
        "source": ExportFormat(job.format).label,
        "rows": [(row, row.id in ticked if ticked is not None else row.selected) for row in rows],
        "all": importing.totals_of(job),
        "selected": importing.totals_of(job, selected=True),
        "problem": problem,
        "since": request.POST.get("since", ""),
        "until": request.POST.get("until", ""),
        "keep_chats": request.POST.get("keep_chats") == "on",
    }
    return render(request, "memoryapp/history_preview.html", context)


@login_required
@require_POST
def history_drop(request: HttpRequest, history_id: int) -> HttpResponse:
    job = _job(request, history_id)
    try:
        importing.drop(job)
    except MemoryConflict:
        pass  # started meanwhile (another tab): the memories page shows it
    return redirect("memories")


@login_required
@require_GET
def history_progress(request: HttpRequest, history_id: int) -> HttpResponse:
    """The import's line on the memories page, polled while it learns."""
    return render(request, "memoryapp/_history_import.html", {"history": _job(request, history_id)})


@login_required
@require_POST
def history_undo(request: HttpRequest, history_id: int) -> HttpResponse:
    job = _job(request, history_id)
    try:
        taken = importing.undo(job)
    except MemoryConflict:
        messages.error(request, _("An import can be undone once it has finished."))
    else:
        messages.success(
            request,
            ngettext(
                "The import was undone: %(count)d memory was removed.",
                "The import was undone: %(count)d memories were removed.",
                taken,
            )
            % {"count": taken},
        )
    if request.htmx:  # asked first in the page (hx-confirm): the whole page comes back, with its message
        return HttpResponseClientRedirect(reverse("memories"))
    return redirect("memories")


@login_required
@require_POST
def history_resume(request: HttpRequest, history_id: int) -> HttpResponse:
    job = _job(request, history_id)
    try:
        importing.resume(job)
    except MemoryConflict:
        pass  # going again already
    return redirect("memories")
