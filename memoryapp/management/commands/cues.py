"""`manage.py cues`: write cues for the memories written without them (the cue job), in this process.
With a model, the model writes them (replacing inferred ones); without one, the memories that have none
at all (written before the situation bank) get the bank's inferred cues.

manage.py cues              every user whose memories lack cues
manage.py cues --user 7     only this user
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from memoryapp.engine.learning import cues
from memoryapp.providers.llm import ProviderError, get_llm


class Command(BaseCommand):
    help = (
        "Ask the configured model for the cues of memories written without them, in batches, with a progress bar; "
        "without a model, infer them from the situation bank."
    )

    def add_arguments(self, parser):
        parser.add_argument("--user", type=int, help="only this user id")

    def handle(self, *args, user: int | None, **options):
        llm = get_llm()
        if llm is None:
            self._infer(user)
            return
        users = [user] if user is not None else cues.users_waiting()
        written = 0
        with tqdm(total=cues.waiting(user).count(), desc="cues", unit="memory", file=self.stderr) as bar:
            for user_id in users:
                seen = [0]

                def progress(done: int, total: int, seen=seen) -> None:
                    bar.update(done - seen[0])
                    seen[0] = done

                try:
                    written += cues.write_missing_cues(user_id, llm, progress=progress)
                except ProviderError as exc:
                    raise CommandError(f"the model failed for user {user_id}: {exc}") from None
        self.stdout.write(self.style.SUCCESS(f"cues written for {written} memories"))

    def _infer(self, user: int | None) -> None:
        from memoryapp.engine.learned.situations import bank

        if bank() is None:
            raise CommandError(
                "no language model is configured (OPENAI_BASE_URL or OPENAI_API_KEY), and the situation bank "
                "is off (INFER_CUES) or not built for this embedder (manage.py train)"
            )
        with tqdm(total=cues.without_cues(user).count(), desc="inferred cues", unit="memory", file=self.stderr) as bar:
            seen = [0]

            def progress(done: int, total: int) -> None:
                bar.update(done - seen[0])
                seen[0] = done

            done = cues.infer_missing_cues(user, progress=progress)
        self.stdout.write(self.style.SUCCESS(f"cues inferred for {done} memories (no model configured)"))
