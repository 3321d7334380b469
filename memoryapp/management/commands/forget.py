"""`manage.py forget`: the nightly forgetting pass, in this process.

manage.py forget                                   every user, today (a second run today does nothing)
manage.py forget --dry-run                         list what would change; change nothing
manage.py forget --user 7 --now 2026-02-01T03:00Z  as if it were that moment
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from tqdm import tqdm

from memoryapp.engine.learning import forgetting


class Command(BaseCommand):
    help = "Forget, demote or promote memories by relevance (see docs/pipeline.md), with a progress bar."

    def add_arguments(self, parser):
        parser.add_argument("--user", type=int, help="only this user id")
        parser.add_argument("--dry-run", action="store_true", help="list the changes without making them")
        parser.add_argument("--now", help="ISO date-time to run as (frozen time)")

    def handle(self, *args, user: int | None, dry_run: bool, now: str | None, **options):
        moment = parse_datetime(now) if now else timezone.now()
        if moment is None:
            raise CommandError(f"--now {now!r} is not an ISO date-time")
        if timezone.is_naive(moment):
            moment = timezone.make_aware(moment)
        users = [user] if user is not None else forgetting.users_with_memories()
        totals = {forgetting.Change.FORGET: 0, forgetting.Change.DEMOTE: 0, forgetting.Change.PROMOTE: 0}
        for user_id in tqdm(users, desc="forgetting", unit="user", file=self.stderr):
            changes, applied = forgetting.forget_user(user_id, moment, dry_run=dry_run)
            if not changes and not dry_run and not applied:
                self.stdout.write(f"user {user_id}: already done for {timezone.localdate(moment)}")
            for change in changes:
                totals[change.change] += 1
                self.stdout.write(
                    f"{'would ' if dry_run else ''}{change.change} #{change.memory_id} "
                    f"(user {user_id}, relevance {change.relevance:.3f}): {change.content[:60]}"
                )
        verb = "would change" if dry_run else "changed"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb}: {totals['forget']} forgotten, {totals['demote']} demoted, {totals['promote']} promoted"
            )
        )
