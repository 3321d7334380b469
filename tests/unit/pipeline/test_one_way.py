"""Background work starts one way: the engine names a job kind (engine/jobs.py) and the tasks layer
registers the task that runs it. Nothing else in the app queues a Celery task or names one."""

from __future__ import annotations

import re
from pathlib import Path

from django.apps import apps

from memoryapp.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[3]
# Starting a task by hand, or naming one: the seam alone may (and Celery's settings: beat's timetable
# and the queue routes name tasks, as Celery wants, without importing them).
QUEUEING = re.compile(
    r"\.delay\(|\.apply_async\(|delay_on_commit|send_task\(|\.signature\(|[\"']tasks\.\w"
    r"|^\s*(from tasks\b|import tasks\b)",
    re.MULTILINE,
)
ALLOWED = {"memoryapp/engine/jobs.py", "memoryapp/settings.py"}
# The tasks layer defines and names its tasks, but starts none by hand either: its signal receivers and the
# graph's drain ask through the seam too. One exception: an admin's re-run of a FailedTask sends the task
# the row recorded, by that name (tasks/base.py `rerun`).
STARTING = re.compile(r"\.delay\(|\.apply_async\(|delay_on_commit\(|send_task\(|\.signature\(")
ALLOWED_IN_TASKS = {("tasks/base.py", "send_task(")}


def _modules(*packages: str):
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" not in relative and relative not in ALLOWED:
                yield relative, path.read_text(encoding="utf-8")


def _found(pattern: re.Pattern, modules, allowed=frozenset()) -> list[str]:
    return [
        f"{name}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0).strip()}"
        for name, text in modules
        for match in pattern.finditer(text)
        if (name, match.group(0).strip()) not in allowed
    ]


def test_it_queues_work_only_through_the_job_seam():
    found = _found(QUEUEING, _modules("memoryapp", "conversations"))
    assert found == [], "queue work with memoryapp.engine.jobs.enqueue(Job...), not a task:\n" + "\n".join(found)


def test_the_tasks_layer_starts_no_task_by_hand():
    found = _found(STARTING, _modules("tasks"), ALLOWED_IN_TASKS)
    assert found == [], "queue work with memoryapp.engine.jobs.enqueue(Job...), not a task:\n" + "\n".join(found)


def test_every_job_kind_has_a_task_that_runs_it():
    from memoryapp.engine.jobs import Job, registered

    runners = dict(registered())
    assert set(runners) == set(Job)
    assert set(runners.values()) <= set(celery_app.tasks)


def test_the_two_background_apps_have_labels_of_their_own_in_the_admin():
    labels = [apps.get_app_config(label).verbose_name for label in ("pipeline", "tasks")]
    assert len(set(labels)) == 2, labels
