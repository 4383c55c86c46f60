from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from asgiref.sync import async_to_sync
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from liveeval.booking.goal_validation import GoalError, validate_goal
from liveeval.booking.goals import describe_bookings, goal_met
from liveeval.booking.world import world_covers
from liveeval.conversation import ConversationClosed, exchange
from liveeval.models import ChatSession, DialogueSystem
from liveeval.systems.base import MAX_REPLY_TIMEOUT


class Command(BaseCommand):
    # Tests pass the utterances as a stream, the way a pipe delivers them.
    stealth_options = ("stdin",)
    help = (
        "Talk to a system from the terminal. Reads one user utterance per line from stdin and "
        "prints one line 'R: <reply>' for each; with --goal, prints a last JSON line "
        '{"completed", "turns", "bookings"}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("system", help="the system's slug, e.g. reference")
        parser.add_argument("--goal", type=Path, help="a task goal JSON file to check at the end")
        parser.add_argument("--today", help="the dialogue's date, YYYY-MM-DD (default: today)")
        parser.add_argument("--lang", choices=["zh", "en"], default="zh")
        parser.add_argument(
            "--timeout",
            type=float,
            default=30.0,
            help=f"seconds per reply, at most {MAX_REPLY_TIMEOUT:g}",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not 0 < options["timeout"] <= MAX_REPLY_TIMEOUT:
            raise CommandError(
                f"--timeout must be more than 0 and at most {MAX_REPLY_TIMEOUT:g} seconds; "
                f"got {options['timeout']:g}"
            )
        system = DialogueSystem.objects.filter(slug=options["system"]).first()
        if system is None:
            known = ", ".join(DialogueSystem.objects.values_list("slug", flat=True))
            raise CommandError(f"no system {options['system']!r}; known systems: {known}")
        today = self._today(options["today"])
        goal = self._goal(options["goal"]) if options["goal"] else None
        if not world_covers(today):
            raise CommandError(
                f"the booking world does not cover {today}; build it with "
                f"'python manage.py build_booking_world --start {today}'"
            )
        session = ChatSession.objects.create(
            system=system,
            kind=ChatSession.Kind.TALK,
            lang=options["lang"],
            today=today,
            status=ChatSession.Status.OPEN,
        )
        stdin: TextIO = options.get("stdin") or sys.stdin
        for line in stdin:
            text = line.strip()
            if not text:
                continue
            try:
                result = async_to_sync(exchange)(session.pk, text, timeout=options["timeout"])
            except ConversationClosed:
                self.stdout.write("R: [the conversation has ended]")
                continue
            if result.reply is None:
                # The cause, in English whatever the dialogue's language: the notice the
                # conversation stored is worded for a judge and says only that it failed.
                raise CommandError(f"system {system.slug} failed: {result.failure}")
            self.stdout.write("R: " + " ".join(result.reply.text.split("\n")))
        session.refresh_from_db()
        if session.is_open:
            session.end(ChatSession.EndReason.USER)
        if goal is not None:
            bookings = list(session.bookings.all())
            summary = {
                "completed": goal_met(goal, bookings, today),
                "turns": session.turn_count(),
                "bookings": describe_bookings(bookings),
            }
            self.stdout.write(json.dumps(summary, ensure_ascii=False))

    @staticmethod
    def _today(value: str | None) -> dt.date:
        if not value:
            return timezone.localdate()
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise CommandError(f"--today must be YYYY-MM-DD; got {value!r}") from None

    @staticmethod
    def _goal(path: Path) -> dict[str, Any]:
        try:
            goal = json.loads(path.read_text(encoding="utf-8"))
            validate_goal(goal)
        except (OSError, json.JSONDecodeError, GoalError) as exc:
            raise CommandError(f"--goal {path}: {exc}") from None
        return goal
