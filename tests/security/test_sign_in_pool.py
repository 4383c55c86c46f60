"""A sign-in holds no database connection while its password is hashed."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.hashers import check_password
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from evalsite import sign_in_backend
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("password", [PASSWORD, "wrong"])
def test_the_connection_is_given_back_before_the_password_is_hashed(
    judge: User, password: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sign_in_backend, "uses_a_pool", lambda: True)
    held_while_hashing: list[bool] = []

    def watching(self: User, raw: str) -> bool:
        held_while_hashing.append(connection.connection is not None)
        return check_password(raw, self.password)

    monkeypatch.setattr(User, "check_password", watching)
    response = Client().post("/accounts/login/", {"username": "jade", "password": password})
    assert held_while_hashing == [False]
    assert response.status_code == (302 if password == PASSWORD else 200)


def test_an_unknown_name_is_hashed_too_without_a_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sign_in_backend, "uses_a_pool", lambda: True)
    hashed: list[bool] = []
    real: Any = User.set_password

    def watching(self: User, raw: str | None) -> None:
        hashed.append(connection.connection is not None)
        real(self, raw)

    monkeypatch.setattr(User, "set_password", watching)
    assert Client().post("/accounts/login/", {"username": "nobody", "password": "x"}).status_code
    assert hashed == [False]
