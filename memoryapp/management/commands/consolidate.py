"""`manage.py consolidate`: write the episode memories that conversations are due, in this process.

manage.py consolidate                     every recently active conversation with a window waiting
manage.py consolidate --conversation 12
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from conversations.models import Conversation
from memoryapp.engine.learning import consolidation
from memoryapp.providers.llm import ProviderError


class Command(BaseCommand):
    help = "Summarise conversations into episode memories (one per 30-message window), with a progress bar."

    def add_arguments(self, parser):
        parser.add_argument("--conversation", type=int, help="only this conversation id")

    def handle(self, *args, conversation: int | None, **options):
        ids = [conversation] if conversation is not None else consolidation.due_conversations()
        written = 0
        for conversation_id in tqdm(ids, desc="consolidating", unit="conversation", file=self.stderr):
            found = Conversation.objects.filter(pk=conversation_id).first()
            if found is None:
                raise CommandError(f"no conversation {conversation_id}")
            try:
                episodes = consolidation.consolidate(found)
            except ProviderError as exc:
                self.stdout.write(self.style.ERROR(f"conversation {conversation_id}: {exc} (run it again later)"))
                continue
            written += sum(1 for e in episodes if e.memory_id or e.suggestion_id)
            for episode in episodes:
                outcome = (
                    f"suggestion {episode.suggestion_id} (auto-extract is off: it waits for the user)"
                    if episode.suggestion_id
                    else f"memory {episode.memory_id}"
                    if episode.memory_id
                    else "no episode (nothing beyond the memories it taught)"
                )
                self.stdout.write(
                    f"conversation {conversation_id}: messages {episode.first_message_id}-"
                    f"{episode.last_message_id} -> {outcome}"
                )
        self.stdout.write(self.style.SUCCESS(f"{written} episode(s) written"))
