"""manage.py train [NAME ...] [--seed N]: retrain the no-model defaults (the extraction, change and
relevance models in memoryapp/engine/learned/weights/) for the embedder configured now.

The training corpora and the dev sets that choose each threshold live in the source checkout's bench/
(thousands of written sentences, not shipped in the package), so this runs `python -m bench.train` there;
on an install without them it says where to get them. Needs scikit-learn: `pip install -e .[train]`.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

CHECKOUT = Path(settings.BASE_DIR)


class Command(BaseCommand):
    help = "Retrain the learned no-model defaults for the configured embedder (a source checkout; needs .[train])."

    def add_arguments(self, parser):
        parser.add_argument("names", nargs="*", metavar="NAME", help="extraction, changes, relevance; default: all")
        parser.add_argument("--seed", type=int, default=7)

    def handle(self, *args, names: list[str], seed: int, **options):
        if not (CHECKOUT / "bench" / "train" / "__main__.py").exists():
            raise CommandError(
                "Training reads the corpora in the source checkout's bench/ folder, which this install does not "
                "have: clone the memoryapp repository, `pip install -e .[train]` there, and run `manage.py train`."
            )
        if importlib.util.find_spec("sklearn") is None:
            raise CommandError("Training needs scikit-learn: `pip install -e .[train]`, then run this again.")
        self.stdout.write(f"training for {settings.EMBEDDING_MODEL} (this takes a few minutes)...")
        done = subprocess.run([sys.executable, "-m", "bench.train", *names, "--seed", str(seed)], cwd=CHECKOUT)
        if done.returncode != 0:
            raise CommandError(f"training stopped (exit {done.returncode}); the shipped weights are unchanged")
        self.stdout.write(self.style.SUCCESS("trained: restart the app to use the new weights"))
