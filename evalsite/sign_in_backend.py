"""Checking a password without holding a database connection while it is hashed.

Django's `ModelBackend` reads the user, then hashes the password (PBKDF2, hundreds of
milliseconds on purpose) while the request keeps its database connection. With PostgreSQL's
connection pool, a burst of sign-ins held every pooled connection through their hashing: 13 of
98 concurrent sign-ins failed after the pool's 30 s wait. `PooledModelBackend` gives the
connection back to the pool before it hashes, outside a transaction; the next query takes one
again. On SQLite, which has no pool, it changes nothing.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db import connection
from django.http import HttpRequest


def uses_a_pool() -> bool:
    return bool(connection.settings_dict.get("OPTIONS", {}).get("pool"))


class PooledModelBackend(ModelBackend):
    """`ModelBackend`, returning the pooled connection before the password is hashed."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        user_model = get_user_model()
        if username is None:
            username = kwargs.get(user_model.USERNAME_FIELD)
        if username is None or password is None:
            return None
        try:
            user = user_model._default_manager.get_by_natural_key(username)
        except user_model.DoesNotExist:
            # Hash anyway, as Django does, so that timing does not tell who has an account.
            self._release()
            user_model().set_password(password)
            return None
        self._release()
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None

    @staticmethod
    def _release() -> None:
        if uses_a_pool() and not connection.in_atomic_block:
            connection.close()
