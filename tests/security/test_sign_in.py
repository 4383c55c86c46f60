"""Sign-in and reset mails are throttled."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils import translation
from pytest_django.fixtures import Settings

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def sign_in(username: str, password: str, address: str = "10.0.0.1") -> int:
    response = Client(REMOTE_ADDR=address).post(
        "/accounts/login/", {"username": username, "password": password}
    )
    return response.status_code


def test_failed_sign_ins_are_throttled_per_account(judge: User, settings: Settings) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    assert [sign_in("jade", "wrong", f"10.0.0.{n}") for n in range(3)] == [200, 200, 200]
    # Even the right password is refused until the window passes, from any address.
    assert sign_in("jade", PASSWORD, "10.0.0.9") == 429
    assert sign_in("jules-unknown", "wrong", "10.0.0.9") == 200


def test_failed_sign_ins_are_throttled_per_address(judge: User, settings: Settings) -> None:
    settings.LOGIN_FAILURES_PER_ADDRESS = 2
    assert [sign_in(f"nobody{n}", "wrong", "10.9.9.9") for n in range(2)] == [200, 200]
    assert sign_in("jade", PASSWORD, "10.9.9.9") == 429
    assert sign_in("jade", PASSWORD, "10.1.1.1") == 302


def test_reset_mails_are_throttled(judge: User, settings: Settings) -> None:
    settings.RESET_MAILS_PER_EMAIL = 2
    client = Client(REMOTE_ADDR="10.0.0.5")
    statuses = [
        client.post("/accounts/password_reset/", {"email": "jade@example.org"}).status_code
        for _ in range(3)
    ]
    assert statuses == [302, 302, 429]
    assert len(mail.outbox) == 2


def admin_sign_in(username: str, password: str, address: str = "10.0.0.1") -> int:
    response = Client(REMOTE_ADDR=address).post(
        f"/{django_settings.ADMIN_PATH}login/", {"username": username, "password": password}
    )
    return response.status_code


@pytest.fixture
def superuser(db: None) -> User:
    return User.objects.create_superuser("sue", "sue@example.org", PASSWORD)


def test_the_admin_sign_in_is_throttled_per_account(superuser: User, settings: Settings) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    assert [admin_sign_in("sue", "wrong", f"10.0.0.{n}") for n in range(3)] == [200, 200, 200]
    assert admin_sign_in("sue", PASSWORD, "10.0.0.9") == 429
    with translation.override("en"):
        page = Client(REMOTE_ADDR="10.0.0.9").post(
            f"/{settings.ADMIN_PATH}login/", {"username": "sue", "password": PASSWORD}
        )
    assert "Too many failed sign-ins" in page.content.decode()
    assert "_auth_user_id" not in page.wsgi_request.session


def test_the_admin_sign_in_is_throttled_per_address(superuser: User, settings: Settings) -> None:
    settings.LOGIN_FAILURES_PER_ADDRESS = 2
    assert [admin_sign_in(f"nobody{n}", "wrong", "10.9.9.9") for n in range(2)] == [200, 200]
    assert admin_sign_in("sue", PASSWORD, "10.9.9.9") == 429
    assert admin_sign_in("sue", PASSWORD, "10.1.1.1") == 302


def test_the_admin_and_the_site_share_their_counts(superuser: User, settings: Settings) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 4
    assert [sign_in("sue", "wrong", "10.0.0.1") for _ in range(2)] == [200, 200]
    assert [admin_sign_in("sue", "wrong", "10.0.0.2") for _ in range(2)] == [200, 200]
    assert admin_sign_in("sue", PASSWORD, "10.0.0.3") == 429
    assert sign_in("sue", PASSWORD, "10.0.0.3") == 429


@pytest.mark.django_db(transaction=True)
def test_concurrent_guesses_are_checked_no_more_often_than_the_limit(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from django.contrib.auth import forms as auth_forms

    from tests.conftest import make_user

    make_user("jade")
    settings.LOGIN_FAILURES_PER_ACCOUNT = 5
    checked: list[str] = []
    real_authenticate: Any = getattr(auth_forms, "authenticate")  # noqa: B009

    def slow_authenticate(*args: object, **kwargs: object) -> object:
        # A password check that takes a while, as PBKDF2 does, widens the race.
        checked.append(str(kwargs.get("password")))
        threading.Event().wait(0.05)
        return real_authenticate(*args, **kwargs)

    monkeypatch.setattr(auth_forms, "authenticate", slow_authenticate)
    start = threading.Barrier(40)
    statuses: list[int] = []

    def guess(number: int) -> None:
        start.wait()
        statuses.append(sign_in("jade", f"guess-{number}", f"10.2.{number}.1"))

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Before, 24 of 40 such guesses were checked against a limit of 5.
    assert len(checked) == 5
    assert statuses.count(429) == 35
