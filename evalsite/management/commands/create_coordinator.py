"""The first account of a new site: a coordinator, who does everything else in the browser."""

from __future__ import annotations

import getpass
import secrets
import sys
from argparse import ArgumentParser
from typing import Any

from django.contrib.auth.models import Group, User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from evalsite import roles, usernames


class Command(BaseCommand):
    help = (
        "Create a coordinator account (the first account of a new site). The password is read "
        "from standard input with --password-stdin, asked for at a terminal, or generated and "
        "printed once with --generate-password."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        source = parser.add_mutually_exclusive_group()
        source.add_argument(
            "--password-stdin", action="store_true", help="read the password from standard input"
        )
        source.add_argument(
            "--generate-password",
            action="store_true",
            help="make a random password and print it once",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username = str(options["username"]).strip()
        if not username:
            raise CommandError("The username is empty.")
        if User.objects.filter(username__iexact=username).exists():
            raise CommandError(f"The username {username!r} is taken; choose another.")
        try:
            usernames.validate_new_username(username)
        except ValidationError as error:
            raise CommandError(f"{username}: {' '.join(error.messages)}") from None
        password = self._password(options)
        user = User(username=username, email=options["email"])
        try:
            validate_password(password, user)
        except ValidationError as error:
            raise CommandError("The password is refused: " + " ".join(error.messages)) from None
        with transaction.atomic():
            user.set_password(password)
            user.save()
            user.groups.add(Group.objects.get_or_create(name=roles.COORDINATORS)[0])
        self.stdout.write(f"Coordinator {username} created. Sign in at /accounts/login/.")
        if options["generate_password"]:
            self.stdout.write(f"Password (shown once): {password}")

    def _password(self, options: dict[str, Any]) -> str:
        if options["generate_password"]:
            return secrets.token_urlsafe(12)
        if options["password_stdin"]:
            return sys.stdin.readline().rstrip("\n")
        if not sys.stdin.isatty():
            raise CommandError(
                "No terminal to ask for the password: use --password-stdin or --generate-password."
            )
        first = getpass.getpass("Password: ")
        if first != getpass.getpass("Password (again): "):
            raise CommandError("The two passwords differ.")
        return first
