from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from liveeval.campaigns import CampaignError, open_campaign
from liveeval.models import Campaign, DialogueSystem, TaskCard
from liveeval.systems.base import DEFAULT_REPLY_TIMEOUT, MAX_REPLY_TIMEOUT


def _names(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


class Command(BaseCommand):
    help = (
        "Create a live-evaluation campaign from system slugs, task keys and judge usernames, "
        "and optionally open it (which makes every judge's plan)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--systems", required=True, help="comma-separated system slugs")
        parser.add_argument("--tasks", required=True, help="comma-separated task keys, or 'all'")
        parser.add_argument("--judges", required=True, help="comma-separated usernames")
        parser.add_argument("--k", type=int, default=3, help="judgements per pair (default 3)")
        parser.add_argument("--max-turns", type=int, default=20)
        parser.add_argument("--today", help="dialogue date YYYY-MM-DD (default: today)")
        parser.add_argument(
            "--lang",
            choices=["zh", "en", "bi"],
            default="zh",
            help="dialogue language; bi: each task card in its own language",
        )
        parser.add_argument("--seed", type=int, default=42)
        parser.add_argument(
            "--reply-timeout",
            type=float,
            default=DEFAULT_REPLY_TIMEOUT,
            help=f"seconds a system has to answer, at most {MAX_REPLY_TIMEOUT:g}",
        )
        parser.add_argument("--open", action="store_true", help="open the campaign at once")

    def handle(self, *args: Any, **options: Any) -> None:
        if not 0 < options["reply_timeout"] <= MAX_REPLY_TIMEOUT:
            raise CommandError(
                f"--reply-timeout must be more than 0 and at most {MAX_REPLY_TIMEOUT:g} "
                f"seconds; got {options['reply_timeout']:g}"
            )
        if Campaign.objects.filter(name=options["name"]).exists():
            raise CommandError(f"a campaign named {options['name']!r} already exists")
        systems = self._lookup(DialogueSystem, "slug", _names(options["systems"]), "system")
        if options["tasks"] == "all":
            tasks = list(TaskCard.objects.all())
        else:
            tasks = self._lookup(TaskCard, "key", _names(options["tasks"]), "task")
        judges = self._lookup(get_user_model(), "username", _names(options["judges"]), "judge")
        try:
            today = (
                dt.date.fromisoformat(options["today"])
                if options["today"]
                else timezone.localdate()
            )
        except ValueError:
            raise CommandError(f"--today must be YYYY-MM-DD; got {options['today']!r}") from None
        with transaction.atomic():
            campaign = Campaign.objects.create(
                name=options["name"],
                judgements_per_pair=options["k"],
                max_turns=options["max_turns"],
                today=today,
                lang=options["lang"],
                seed=options["seed"],
                reply_timeout=options["reply_timeout"],
            )
            campaign.systems.set(systems)
            campaign.tasks.set(tasks)
            campaign.judges.set(judges)
            if options["open"]:
                try:
                    planned = open_campaign(campaign)
                except CampaignError as exc:
                    raise CommandError(str(exc)) from None
                self.stdout.write(f"Opened {campaign.name!r}: {planned} conversations planned.")
            else:
                self.stdout.write(f"Created draft campaign {campaign.name!r} (id {campaign.pk}).")

    @staticmethod
    def _lookup(model: Any, field: str, names: list[str], what: str) -> list[Any]:
        found = {
            getattr(obj, field): obj for obj in model.objects.filter(**{f"{field}__in": names})
        }
        missing = [name for name in names if name not in found]
        if missing:
            raise CommandError(f"unknown {what}(s): {', '.join(missing)}")
        if not names:
            raise CommandError(f"name at least one {what}")
        return [found[name] for name in names]
