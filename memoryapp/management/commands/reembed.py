"""`manage.py reembed`: give every memory a vector from the embedding model the settings name now
(EMBEDDING_MODEL, EMBEDDING_DIM), with progress; resumable; the app keeps answering from the old
vectors until the switch (engine/memories/reembed.py)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand
from tqdm import tqdm

from memoryapp.engine.memories.reembed import reembed, stored_dimension
from memoryapp.providers.embeddings import get_embedder


class Command(BaseCommand):
    help = "Re-embed every memory with the configured embedding model, then switch recall to the new vectors."

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=256)

    def handle(self, *args, batch_size: int, **options):
        embedder = get_embedder()
        before = stored_dimension()
        self.stdout.write(
            f"re-embedding with {settings.EMBEDDING_MODEL} ({embedder.dim}-d; stored now: {before}-d); "
            "the app keeps answering from the old vectors until the switch"
        )

        with tqdm(desc="re-embedding", unit="memory", file=self.stderr) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            report = reembed(embedder, batch_size=batch_size, progress=progress)
        self.stdout.write(
            self.style.SUCCESS(
                f"done: {report.embedded} embedded in this run, {report.total} memories now on {settings.EMBEDDING_MODEL} "
                f"({embedder.dim}-d). Restart the app with EMBEDDING_MODEL={settings.EMBEDDING_MODEL} "
                f"EMBEDDING_DIM={embedder.dim}; rebuild the graph with `manage.py graph_sync --rebuild --user ID` "
                "if it is on."
            )
        )
