"""`manage.py review_conflicts`: the nightly reviewer, in this process.

manage.py review_conflicts            every user
manage.py review_conflicts --user 7   one user
"""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from memoryapp.engine.learning.forgetting import users_with_memories
from memoryapp.engine.memories import conflicts


class Command(BaseCommand):
    help = "Ask about current memories of one slot that disagree (shown on the memories page)."

    def add_arguments(self, parser):
        parser.add_argument("--user", type=int, help="only this user id")

    def handle(self, *args, user: int | None, **options):
        users = [user] if user is not None else users_with_memories()
        asked = 0
        for user_id in tqdm(users, desc="reviewing", unit="user", file=self.stderr):
            for question in conflicts.review(user_id):
                asked += 1
                self.stdout.write(
                    f"user {user_id}: does #{question.newer_id} replace #{question.older_id}? ({question.slot})"
                )
        self.stdout.write(self.style.SUCCESS(f"asked {asked} questions"))
