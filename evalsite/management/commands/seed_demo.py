from __future__ import annotations

import os
from typing import Any, TextIO, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from evalsite import demo, roles

DEMO_USERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("coordinator", (roles.COORDINATORS,)),
    ("judge1", (roles.JUDGES,)),
    ("judge2", (roles.JUDGES,)),
    ("judge3", (roles.JUDGES,)),
    ("annotator1", (roles.ANNOTATORS,)),
    ("annotator2", (roles.ANNOTATORS,)),
    ("annotator3", (roles.ANNOTATORS,)),
    ("both", (roles.JUDGES, roles.ANNOTATORS)),
    ("team1", (roles.PARTICIPANTS,)),
    ("team2", (roles.PARTICIPANTS,)),
)


def superuser_command() -> str:
    """The command that creates a superuser in this checkout. ``make demo`` runs with DEBUG=1
    and no SECRET_KEY, which settings refuse without DEBUG, so the command then carries it."""
    needs_debug = settings.DEBUG and not os.environ.get("SECRET_KEY")
    return f"{'DEBUG=1 ' if needs_debug else ''}.venv/bin/python manage.py createsuperuser"


class Command(BaseCommand):
    help = (
        "Create demo users for every role and load the demo data of every app. "
        "Safe to run again: it updates what exists and never duplicates."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--password",
            default="evalsite-demo",
            help="Password given to every demo user (default: %(default)s).",
        )
        parser.add_argument(
            "--users-only", action="store_true", help="Create the users but load no app data."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        password: str = options["password"]
        with transaction.atomic():
            self._create_users(password)
        if not options["users_only"]:
            # Django's OutputWrapper writes like the text stream the demo modules expect.
            stdout = cast(TextIO, self.stdout)
            demo.seed_all(stdout)
        self.stdout.write(self.style.SUCCESS("Demo logins (username / password):"))
        for username, held in DEMO_USERS:
            self.stdout.write(f"  {username:<12} {password:<16} {', '.join(held)}")
        self.stdout.write(
            "Coordinators do everything from the site's pages. The Django admin is for "
            f"superusers only; create one with: {superuser_command()}"
        )

    def _create_users(self, password: str) -> None:
        user_model = get_user_model()
        groups = {name: Group.objects.get_or_create(name=name)[0] for name in roles.ROLES}
        for username, held in DEMO_USERS:
            user, _ = user_model.objects.get_or_create(
                username=username, defaults={"email": f"{username}@example.org"}
            )
            user.set_password(password)
            user.is_staff = roles.COORDINATORS in held
            user.save()
            user.groups.set([groups[name] for name in held])
