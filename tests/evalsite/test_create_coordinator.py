"""``manage.py create_coordinator``: the first account of a new site."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from evalsite import roles

pytestmark = pytest.mark.django_db


def create(*args: str) -> str:
    out = io.StringIO()
    call_command("create_coordinator", *args, stdout=out)
    return out.getvalue()


def test_it_makes_a_coordinator_who_can_sign_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-first-password-7\n"))
    output = create("owner", "--email", "owner@example.org", "--password-stdin")
    assert "Coordinator owner created" in output
    user = User.objects.get(username="owner")
    assert roles.has_role(user, roles.COORDINATORS)
    assert not user.is_staff and not user.is_superuser
    client = Client()
    assert client.login(username="owner", password="a-long-first-password-7")
    assert client.get("/live/campaigns/").status_code == 200


def test_a_generated_password_is_printed_once_and_works() -> None:
    output = create("owner", "--generate-password")
    password = output.split("Password (shown once): ")[1].strip()
    assert Client().login(username="owner", password=password)


@pytest.mark.parametrize(
    ("username", "stdin", "message"),
    [
        ("owner", "short\n", "The password is refused"),
        ("otto", "a-long-first-password-7\n", "is taken"),
        ("pаul", "a-long-first-password-7\n", "mixes Latin letters"),
        ("\u043e\u0442\u0442\u043e", "a-long-first-password-7\n", "looks like a username"),
    ],
)
def test_it_refuses_what_would_be_unsafe(
    monkeypatch: pytest.MonkeyPatch, outsider: User, username: str, stdin: str, message: str
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    with pytest.raises(CommandError, match=message):
        create(username, "--password-stdin")
    assert User.objects.count() == 1


def test_without_a_terminal_it_says_how_to_give_the_password(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(CommandError, match="--password-stdin or --generate-password"):
        create("owner")
