"""`manage.py extract`: run extraction in this process, through the engine's `run_window`, as the worker does.

manage.py extract --conversation 12               the conversation's last 10 messages
manage.py extract --conversation 12 --messages 40 41 42
manage.py extract --failed                        every window whose extraction failed
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from conversations.models import Conversation
from memoryapp.engine.errors import MemoryConflict
from memoryapp.engine.learning import extraction
from memoryapp.pipeline.models import ExtractionRun, RunStatus
from memoryapp.providers.llm import ProviderError


class Command(BaseCommand):
    help = "Extract memories from a conversation's messages (or retry failed windows), with a progress bar."

    def add_arguments(self, parser):
        parser.add_argument("--conversation", type=int, help="conversation id")
        parser.add_argument("--messages", type=int, nargs="+", help="these message ids instead of the last 10")
        parser.add_argument("--failed", action="store_true", help="retry every failed window")

    def handle(self, *args, conversation: int | None, messages: list[int] | None, failed: bool, **options):
        if failed:
            runs = list(ExtractionRun.objects.filter(status=RunStatus.FAILED).select_related("conversation"))
        elif conversation is not None:
            found = Conversation.objects.filter(pk=conversation).first()
            if found is None:
                raise CommandError(f"no conversation {conversation}")
            ids = sorted(messages) if messages else extraction.last_window(found.pk)
            if not ids:
                raise CommandError(f"conversation {conversation} has no messages")
            runs = [extraction.queue_run(found, ids)[0]]
        else:
            raise CommandError("give --conversation ID or --failed")
        for run in tqdm(runs, desc="extracting", unit="window", file=self.stderr, disable=not runs):
            try:
                done, ran = extraction.run_window(run)
            except (ProviderError, MemoryConflict) as exc:
                self.stdout.write(self.style.ERROR(f"window {run.key}: {exc} (run it again later)"))
                continue
            if not ran:
                self.stdout.write(f"window {done.key}: already {done.status}, nothing to do")
                continue
            self.stdout.write(
                f"window {done.key}: {done.status} {done.applied} ({done.llm_calls} model calls, {done.seconds:.2f} s)"
            )
