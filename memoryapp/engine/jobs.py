"""The one way the engine asks for background work: `enqueue(Job.EXTRACT, conversation_id, message_ids)`.

The engine owns what each job does (engine/learning/: extraction, consolidation, forgetting; engine/chat/chat_end.py)
and names the work it wants by its `Job` kind; it never imports a task. The tasks layer fills the
registry in `TasksConfig.ready()` with one runner per kind (a Celery task: anything with a `name` and a
`delay(*args)`), and each task loads its rows by id and calls one engine function.

Every enqueue goes out once the current transaction commits (at once outside one), so a worker never
sees uncommitted rows. Queueing never fails the caller: a broker that is down is logged, and the caller's
`if_not_queued` (say, reopening a chat for the idle sweep to end later) runs instead; every job also has a
sweep that finds work left behind (stalled extraction runs, idle chats, due consolidations).

What a job is about (`Job.subject`: the name of its first argument) is how the purge finds the failed
runs of a deleted user's, conversation's or memory's jobs (engine/memories/purge.py), whatever the task is called.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from typing import Any, Protocol

from django.db import transaction

log = logging.getLogger(__name__)


class Job(StrEnum):
    """Every kind of background work the engine asks for, with the arguments it is queued with."""

    EXTRACT = "extract"  # (conversation_id, message_ids): one window of a chat
    CONSOLIDATE = "consolidate"  # (conversation_id): its due episodes
    FINISH_CHAT = "finish_chat"  # (conversation_id): what an ended chat still owes
    FORGET = "forget"  # (user_id, now=None): one forgetting pass
    SYNC_MEMORY = "sync_memory"  # (memory_id): the memory's graph episode
    PURGE_EPISODE = "purge_episode"  # (episode_id, user_id): a purged memory's graph episode goes
    DROP_USER = "drop_user"  # (user_id): everything the graph holds for the user goes
    WRITE_CUES = "write_cues"  # (user_id): cues for the user's memories written without them
    IMPORT = "import"  # (import_id): an ImportJob's rows, written all or nothing
    LEARN = "learn"  # (learn_id): a LearnJob's turns, learnt as a chat's are
    LEARN_HISTORY = "learn_history"  # (history_id): a HistoryImport's conversations, oldest first

    @property
    def subject(self) -> str:
        """The name of the job's first argument: the id it is about."""
        return _SUBJECTS[self]


_SUBJECTS = {
    Job.EXTRACT: "conversation_id",
    Job.CONSOLIDATE: "conversation_id",
    Job.FINISH_CHAT: "conversation_id",
    Job.FORGET: "user_id",
    Job.SYNC_MEMORY: "memory_id",
    Job.PURGE_EPISODE: "episode_id",
    Job.DROP_USER: "user_id",
    Job.WRITE_CUES: "user_id",
    Job.IMPORT: "import_id",
    Job.LEARN: "learn_id",
    Job.LEARN_HISTORY: "history_id",
}


class Runner(Protocol):
    """What runs a job: a Celery task fits."""

    name: str

    def delay(self, *args: Any) -> Any: ...


class JobNotRegistered(LookupError):
    def __init__(self, kind: Job):
        super().__init__(f"no runner is registered for the {kind.value!r} job (TasksConfig.ready() registers them)")
        self.kind = kind


_runners: dict[Job, Runner] = {}


def register(runners: Mapping[Job, Runner]) -> None:
    """Set the runner of each kind (TasksConfig.ready(); tests may swap one)."""
    _runners.update(runners)


def runner(kind: Job) -> Runner:
    try:
        return _runners[kind]
    except KeyError:
        raise JobNotRegistered(kind) from None


def registered() -> Iterator[tuple[Job, str]]:
    """Each registered kind with its runner's name (the name a FailedTask row records)."""
    for kind, job_runner in _runners.items():
        yield kind, job_runner.name


def enqueue(kind: Job, *args: Any, if_not_queued: Callable[[], object] | None = None) -> None:
    """Queue `kind` with `args` once the transaction commits. A broker error is logged and never
    raised into the caller; `if_not_queued` then runs, to leave the work for its sweep."""
    job_runner = runner(kind)  # an unknown kind is a programming error: fail now, not after commit
    transaction.on_commit(functools.partial(_send, kind, job_runner, args, if_not_queued), robust=True)


def enqueuer(kind: Job) -> Callable[..., None]:
    """`enqueue` bound to one kind, for an engine function that takes its queue as an argument."""
    return functools.partial(enqueue, kind)


def _send(kind: Job, job_runner: Runner, args: tuple, if_not_queued: Callable[[], object] | None) -> None:
    try:
        job_runner.delay(*args)
    except Exception:
        log.exception("could not queue the %s job %r; its sweep will find it", kind.value, args)
        if if_not_queued is not None:
            if_not_queued()
