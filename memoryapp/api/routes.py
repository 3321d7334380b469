"""The REST API (django-ninja): OpenAPI at /api/docs. Routers per app, mounted here.

Every route takes a Bearer token or the browser session (CSRF on unsafe methods), and sees only the
caller's rows: another user's id answers 404, like an id that never existed.

Every answer is JSON and in the schema: each route lists the statuses it can give (`errors(...)`), every
error has the one body `ErrorOut`, mapped here with one exception handler per type; the answers Django
gives outside the routes (unknown path, 405, 500) are made JSON by memoryapp/api/errors.py.
"""

from __future__ import annotations

from typing import Literal

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.urls import reverse
from ninja import Field, File, Form, NinjaAPI, Query, Router, Schema, Status, UploadedFile
from ninja.errors import AuthenticationError, Throttled, ValidationError

from conversations.api import router as conversations_router
from memoryapp.api.auth import API_PATH, AuthedRequest, bearer_auth, bearer_read_auth, session_auth
from memoryapp.api.schemas import (
    ConflictOut,
    DateTimeIn,
    ErrorOut,
    EventOut,
    ExportOut,
    ExtractIn,
    HistoryImportOut,
    HistoryStartIn,
    ImportIn,
    ImportJobOut,
    Kind,
    LearnJobOut,
    MemoryIn,
    MemoryOut,
    MemoryPageOut,
    MemoryPatchIn,
    ResolveIn,
    RowErrorOut,
    SearchIn,
    SearchOut,
    Source,
    StatsOut,
    StatusName,
    WriteOut,
    errors,
)
from memoryapp.api.throttling import WritesPerUser
from memoryapp.engine.chat_state.store import ChatStateUnavailable
from memoryapp.engine.errors import MemoryConflict, MemoryNotFound, MemoryValidationError
from memoryapp.engine.history import importing
from memoryapp.engine.history.exports import DEFAULT_LIMITS, ExportError, ExportTooLarge
from memoryapp.engine.learning import turns
from memoryapp.engine.memories import conflicts, imports, listing, purge, transfer, write
from memoryapp.engine.memories.validation import readable_error
from memoryapp.engine.recall import access
from memoryapp.lib.origin import bearer_challenge, request_origin
from memoryapp.models import Actor, Memory, MemoryStatus

RETRY_AFTER = {
    "Retry-After": {
        "description": "seconds until a write is allowed again",
        "schema": {"type": "integer", "minimum": 0},
    }
}


class MemoryappAPI(NinjaAPI):
    def get_openapi_schema(self, **kwargs):
        """ninja's schema, plus the Retry-After header that every 429 carries (ninja sets it, but
        its schema does not say so)."""
        schema = super().get_openapi_schema(**kwargs)
        for operations in schema["paths"].values():
            for operation in operations.values():
                if 429 in operation["responses"]:
                    operation["responses"][429]["headers"] = RETRY_AFTER
        return schema


api = MemoryappAPI(
    title="memoryapp API",
    version="1",
    urls_namespace="api",
    auth=[bearer_auth, session_auth],
    docs_url="/docs",
    throttle=WritesPerUser(),
)
router = Router(tags=["memories"])


def first_error(errors: list[dict]) -> tuple[str, str | None]:
    """ninja's list of request errors as one readable sentence and the field it names, worded as the
    engine words its own (`readable_error`): `("limit: Input should be greater than or equal to 1", "limit")`."""
    error = errors[0]
    source, *path = error["loc"]
    if source == "body":
        path = path[1:]  # the view's argument name (`payload`), not a field the client sent
    return readable_error(error, path, where="the request body" if source == "body" else source)


@api.exception_handler(ValidationError)
def on_bad_request(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """The request's shape is wrong (ninja's own validation): the one error body, like the engine's 422."""
    detail, field = first_error(exc.errors)
    return api.create_response(request, {"detail": detail, "field": field}, status=422)


@api.exception_handler(MemoryValidationError)
def on_validation_error(request: HttpRequest, exc: MemoryValidationError) -> HttpResponse:
    return api.create_response(request, {"detail": exc.message, "field": exc.field}, status=422)


@api.exception_handler(MemoryConflict)
def on_conflict(request: HttpRequest, exc: MemoryConflict) -> HttpResponse:
    return api.create_response(request, {"detail": exc.message}, status=409)


@api.exception_handler(MemoryNotFound)
def on_not_found(request: HttpRequest, exc: MemoryNotFound) -> HttpResponse:
    return api.create_response(request, {"detail": exc.message}, status=404)


@api.exception_handler(RequestDataTooBig)
def on_body_too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    limit_mb = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 2**20
    return api.create_response(request, {"detail": f"the request body is larger than {limit_mb:g} MB"}, status=413)


@api.exception_handler(MultiPartParserError)
def on_bad_upload(request: HttpRequest, exc: MultiPartParserError) -> HttpResponse:
    return api.create_response(request, {"detail": f"the upload could not be read: {exc}"}, status=400)


@api.exception_handler(ChatStateUnavailable)
def on_chat_state_unavailable(request: HttpRequest, exc: ChatStateUnavailable) -> HttpResponse:
    return api.create_response(request, {"detail": exc.message}, status=503)


@api.exception_handler(AuthenticationError)
def on_unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    """401, saying where an OAuth client finds how to sign in (RFC 9728 §5.1), as /mcp does."""
    response = api.create_response(
        request, {"detail": "a valid API token is needed: Authorization: Bearer …"}, status=401
    )
    response["WWW-Authenticate"] = bearer_challenge(request_origin(request), API_PATH.rstrip("/"))
    return response


@api.exception_handler(Throttled)
def on_throttled(request: HttpRequest, exc: Throttled) -> HttpResponse:
    """ninja sets Retry-After; the body says which limit was hit."""
    limit = settings.API_WRITES_PER_MINUTE
    return api.create_response(
        request, {"detail": f"too many changes: at most {limit} per minute; try again in a minute"}, status=429
    )


def _memory(request: AuthedRequest, memory_id: int) -> Memory:
    memory = listing.get_memory(request.auth, memory_id)
    if memory is None:
        raise MemoryNotFound(f"memory {memory_id} not found")
    return memory


def _written(result: write.WriteResult) -> dict:
    return {"action": result.action, "memory": result.memory}


class ListParams(Schema):
    kind: Kind | None = None
    status: StatusName = MemoryStatus.ACTIVE
    source: Source | None = None
    since: DateTimeIn | None = None
    until: DateTimeIn | None = None
    at: DateTimeIn | None = None
    cursor: str | None = None
    limit: int = Field(20, ge=1, le=listing.MAX_PAGE_SIZE)


class ImportErrorOut(ErrorOut):
    errors: list[RowErrorOut] = []


@router.get("", response={200: MemoryPageOut, **errors(422)}, summary="List memories (newest first)")
def list_memories(request: AuthedRequest, params: Query[ListParams]):
    flt = listing.MemoryFilter(
        kind=params.kind or "",
        status=params.status,
        source=params.source or "",
        since=params.since,
        until=params.until,
        at=params.at,
    )
    page = listing.list_memories(request.auth, flt, cursor=params.cursor, limit=params.limit)
    access.note_reads([m.pk for m in page.memories])
    return {"items": page.memories, "next_cursor": page.next_cursor}


@router.post(
    "",
    response={201: WriteOut, 200: WriteOut, **errors(403, 409, 413, 422, 429)},
    summary="Add a memory (a near-duplicate is merged into the existing one: 200)",
)
def create_memory(request: AuthedRequest, payload: MemoryIn):
    result = write.add_memory(request.auth, **payload.dict(), actor=Actor.API)
    return Status(201 if result.action == "created" else 200, _written(result))


@router.post(
    "/search",
    response={200: SearchOut, **errors(403, 413, 422)},
    summary="Search: hybrid (vector, text, graph), keyword or vector; filters by time, type, status, as of a date",
    throttle=[],
    auth=[bearer_read_auth, session_auth],
)  # a read sent as POST: not a write, and open to a read-only grant
def search_memories(request: AuthedRequest, payload: SearchIn):
    flt = listing.MemoryFilter(
        q=payload.query,
        kind=payload.kind or "",
        kinds=tuple(payload.kinds),
        status=payload.status,
        since=payload.since,
        until=payload.until,
        at=payload.at,
        method=payload.method,
    )
    page = listing.list_memories(request.auth, flt, limit=payload.limit)
    access.note_access([m.pk for m in page.memories])
    return {"items": [{"score": page.scores.get(m.pk, 0.0), "memory": m} for m in page.memories]}


@router.get("/stats", response={200: StatsOut, **errors()}, summary="Counts by type and status")
def memory_stats(request: AuthedRequest):
    return listing.stats(request.auth)


MARKDOWN_EXPORT = {
    "responses": {
        200: {
            "description": "the export file, as an attachment: JSON (`format=json`) or Markdown (`format=markdown`)",
            "content": {"text/markdown": {"schema": {"type": "string"}}},
            "headers": {"Content-Disposition": {"schema": {"type": "string"}, "description": "attachment; filename=…"}},
        }
    }
}


@router.get(
    "/export",
    response={200: ExportOut, **errors(422)},
    openapi_extra=MARKDOWN_EXPORT,
    summary="Export as JSON (format=json) or Markdown (format=markdown)",
)
def export_memories(request: AuthedRequest, format: Literal["json", "markdown"] = "json"):
    file = transfer.export_file(request.auth, format, actor=Actor.API)
    response = HttpResponse(file.body, content_type=file.content_type)
    response["Content-Disposition"] = f'attachment; filename="{file.filename}"'
    return response


@router.post(
    "/import",
    response={202: ImportJobOut, **errors(403, 413, 429), 422: ImportErrorOut},
    openapi_extra={
        "responses": {
            202: {
                "description": "Queued: poll the job at its Location",
                "headers": {"Location": {"schema": {"type": "string"}, "description": "/api/memories/import/{job_id}"}},
            }
        }
    },
    summary="Import an export file as a job: all rows or, if any row is bad, none",
)
def import_memories(request: AuthedRequest, payload: ImportIn, response: HttpResponse):
    """Every row is checked now: a bad row answers 422 naming each bad row, and nothing is queued. A good
    file answers 202 with the job, which the worker writes all at once; poll it for its progress."""
    try:
        queued = imports.queue_import(request.auth, {"memories": payload.memories}, actor=Actor.API)
    except MemoryValidationError as exc:
        return Status(422, {"detail": exc.message, "field": exc.field, "errors": []})
    if not queued.ok:
        return Status(
            422,
            {
                "detail": f"{len(queued.errors)} rows are invalid; nothing was imported",
                "field": "memories",
                "errors": queued.errors,
            },
        )
    assert queued.job is not None  # an import whose rows are all valid is queued as a job
    response["Location"] = reverse("api:import_job", kwargs={"job_id": queued.job.pk})
    return Status(202, queued.job)


@router.get(
    "/import/{int:job_id}",
    response={200: ImportJobOut, **errors(404)},
    url_name="import_job",
    summary="An import job: its status and how many rows it has written",
)
def import_job(request: AuthedRequest, job_id: int):
    job = imports.job_of(request.auth, job_id)
    if job is None:
        raise MemoryNotFound(f"import job {job_id} not found")
    return job


@router.post(
    "/extract",
    response={202: LearnJobOut, **errors(403, 409, 413, 422, 429)},
    openapi_extra={
        "responses": {
            202: {
                "description": "Queued (or, for an idempotency_key already used, that key's job): poll it at its Location",
                "headers": {
                    "Location": {"schema": {"type": "string"}, "description": "/api/memories/extract/{job_id}"}
                },
            }
        }
    },
    summary="Learn from a conversation's turns, as a chat of the app learns, in the background",
)
def extract_memories(request: AuthedRequest, payload: ExtractIn, response: HttpResponse):
    """The turns are checked now (422 naming the field); the worker learns them as a chat's: each turn's
    `created_at` is when what it says became true. The same idempotency_key again answers its first job
    (409 when it comes with other turns)."""
    queued = turns.queue_learning(request.auth, payload, actor=Actor.API)
    response["Location"] = reverse("api:learn_job", kwargs={"job_id": queued.job.pk})
    return Status(202, queued.job)


@router.get(
    "/extract/{int:job_id}",
    response={200: LearnJobOut, **errors(404)},
    url_name="learn_job",
    summary="A learning job: its status, how far it got and what it learnt",
)
def learn_job(request: AuthedRequest, job_id: int):
    job = turns.job_of(request.auth, job_id)
    if job is None:
        raise MemoryNotFound(f"learning job {job_id} not found")
    return job


@router.post(
    "/import/history",
    response={201: HistoryImportOut, 202: HistoryImportOut, **errors(403, 413, 422, 429)},
    openapi_extra={
        "responses": {
            202: {
                "description": "Started: poll the import at its Location",
                "headers": {
                    "Location": {"schema": {"type": "string"}, "description": "/api/memories/import/history/{id}"}
                },
            },
            201: {"description": "start=false: read and previewed, waiting for POST .../{id}/start"},
        }
    },
    summary="Learn from a ChatGPT or Claude export (the .zip or its conversations.json), oldest first",
)
def import_history(
    request: AuthedRequest,
    response: HttpResponse,
    export: File[UploadedFile],
    format: Form[Literal["auto", "chatgpt", "claude"]] = "auto",
    start: Form[bool] = True,
):
    """The file is read now: one that is not an export of `format` answers 422 in one sentence, and nothing
    is kept. With `start` (the default) the conversations a person would leave ticked (all but archived and
    temporary ones) are learnt by the worker; `start=false` answers the preview, to choose with `/start`."""
    if export.size and export.size > DEFAULT_LIMITS.max_file_bytes:
        return Status(413, {"detail": "an export over 2 GB is refused", "field": "export"})
    try:
        job = importing.receive(request.auth, export, export.name or "export", actor=Actor.API)
    except ExportError as exc:
        return Status(413 if isinstance(exc, ExportTooLarge) else 422, {"detail": str(exc), "field": "export"})
    if format != "auto" and job.format != format:
        importing.drop(job)
        return Status(422, {"detail": f"this is a {job.format} export, not a {format} one", "field": "format"})
    response["Location"] = reverse("api:history_import", kwargs={"history_id": job.pk})
    if not start:
        return Status(201, job)
    return Status(202, importing.start(job))


@router.post(
    "/import/history/{int:history_id}/start",
    response={202: HistoryImportOut, **errors(403, 404, 409, 422, 429)},
    summary="Start a previewed import: the conversations chosen, oldest first",
)
def start_history_import(request: AuthedRequest, history_id: int, payload: HistoryStartIn, response: HttpResponse):
    job = _history(request, history_id)
    started = importing.start(
        job, ticked=payload.conversations, since=payload.since, until=payload.until, keep_chats=payload.keep_chats
    )
    response["Location"] = reverse("api:history_import", kwargs={"history_id": job.pk})
    return Status(202, started)


@router.get(
    "/import/history/{int:history_id}",
    response={200: HistoryImportOut, **errors(404)},
    url_name="history_import",
    summary="An import of a ChatGPT or Claude export: how far it got and what it learnt",
)
def history_import(request: AuthedRequest, history_id: int):
    return _history(request, history_id)


@router.post(
    "/import/history/{int:history_id}/undo",
    response={200: HistoryImportOut, **errors(403, 404, 409, 429)},
    summary="Undo an import: every memory it wrote deleted, what it replaced current again, its chats removed",
)
def undo_history_import(request: AuthedRequest, history_id: int):
    job = _history(request, history_id)
    importing.undo(job, actor=Actor.API)
    job.refresh_from_db()
    return job


@router.post(
    "/import/history/{int:history_id}/resume",
    response={202: HistoryImportOut, **errors(403, 404, 409, 429)},
    summary="Resume an import that stopped, after the last conversation it learnt",
)
def resume_history_import(request: AuthedRequest, history_id: int):
    return Status(202, importing.resume(_history(request, history_id)))


def _history(request: AuthedRequest, history_id: int):
    job = importing.job_of(request.auth, history_id)
    if job is None:
        raise MemoryNotFound(f"import {history_id} not found")
    return job


@router.get(
    "/conflicts",
    response={200: list[ConflictOut], **errors()},
    summary="Memories that may disagree, waiting for the user's answer",
)
def list_conflicts(request: AuthedRequest):
    questions = list(conflicts.open_questions(request.auth))
    access.note_reads([m.pk for q in questions for m in (q.older, q.newer)])
    return questions


@router.post(
    "/conflicts/{int:question_id}/resolve",
    response={200: ConflictOut, **errors(403, 404, 409, 422, 429)},
    summary="Answer one: replace (the newer replaces the older) or keep both",
)
def resolve_conflict(request: AuthedRequest, question_id: int, payload: ResolveIn):
    question = conflicts.get_question(request.auth, question_id)
    return conflicts.resolve(question, payload.answer, actor=Actor.API)


@router.get("/{int:memory_id}", response={200: MemoryOut, **errors(404)})
def get_memory(request: AuthedRequest, memory_id: int):
    memory = _memory(request, memory_id)
    access.note_access([memory.pk])
    return memory


@router.patch(
    "/{int:memory_id}",
    response={200: WriteOut, **errors(403, 404, 409, 413, 422, 429)},
    summary="Edit; a new content supersedes the memory",
)
def edit_memory(request: AuthedRequest, memory_id: int, payload: MemoryPatchIn):
    memory = _memory(request, memory_id)
    return _written(write.edit_memory(memory, payload.dict(exclude_unset=True), actor=Actor.API))


@router.delete(
    "/{int:memory_id}", response={200: WriteOut, **errors(403, 404, 429)}, summary="Delete (soft: restorable)"
)
def delete_memory(request: AuthedRequest, memory_id: int):
    memory = _memory(request, memory_id)
    return _written(write.delete_memory(memory, actor=Actor.API))


@router.post("/{int:memory_id}/restore", response={200: WriteOut, **errors(403, 404, 409, 429)})
def restore_memory(request: AuthedRequest, memory_id: int):
    memory = _memory(request, memory_id)
    return _written(write.restore_memory(memory, actor=Actor.API))


class PurgeOut(Schema):
    purged: list[int]  # the memory's id and those of its earlier or later versions that went with it


@router.post(
    "/{int:memory_id}/purge",
    response={200: PurgeOut, **errors(403, 404, 429)},
    summary="Delete forever, with its versions (not restorable)",
)
def purge_memory(request: AuthedRequest, memory_id: int):
    memory = _memory(request, memory_id)
    return {"purged": purge.purge_memory(memory, actor=Actor.API)}


@router.get(
    "/{int:memory_id}/history",
    response={200: list[EventOut], **errors(404)},
    summary="The change log of the memory and the versions it replaced, newest first",
)
def memory_history(request: AuthedRequest, memory_id: int):
    memory = _memory(request, memory_id)
    access.note_reads([memory.pk])
    return listing.history(request.auth, memory)


api.add_router("/memories", router)
api.add_router("/conversations", conversations_router)
