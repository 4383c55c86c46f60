"""EvalSite's settings for the test suite: the served settings, with a fast password hasher.

pytest runs with ``DJANGO_SETTINGS_MODULE=testing.settings`` (pyproject.toml), and the daphne,
``manage.py`` and worker processes that tests start inherit it. Everything is read from the
environment exactly as in ``evalsite.settings``; only the password hasher differs. The served
PBKDF2 hasher is slow on purpose, and every test user, every seeded demo account and every
log-in would pay for it; what the tests check of passwords (the right one lets you in, a
changed one is stored) holds with any hasher.
"""

from __future__ import annotations

from evalsite.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
