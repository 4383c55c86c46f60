"""The demo data of every app, loaded by ``manage.py seed_demo`` (and so by ``make demo``).

Each app registers the function that seeds its demo data from its ``AppConfig.ready()`` with
:func:`register`; seeders run in the order the apps are installed. This module names no app.
A seeder must be safe to run again: it updates what exists and never duplicates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

Seeder = Callable[[TextIO], None]
_SEEDERS: list[Seeder] = []


def register(seed: Seeder) -> None:
    """Add an app's seeder; registering the same one again (a second ``ready()``) does nothing."""
    if seed not in _SEEDERS:
        _SEEDERS.append(seed)


def seed_all(stdout: TextIO) -> None:
    """Run every registered seeder, writing what each does to ``stdout``."""
    for seed in _SEEDERS:
        seed(stdout)
