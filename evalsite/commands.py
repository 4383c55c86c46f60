"""What the management commands share: finding the record a person named on the command line."""

from __future__ import annotations

from typing import TypeVar

from django.core.management.base import CommandError
from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)
KNOWN_SHOWN = 20


def named_or_numbered(records: QuerySet[M], name_or_id: str, what: str) -> M:
    """The record whose ``name`` is ``name_or_id``, else whose id it is.

    Raises `CommandError` naming ``what`` was sought and the records there are, with their ids,
    so the person can correct the command.
    """
    found = records.filter(name=name_or_id).first()
    if found is None and name_or_id.isdigit():
        found = records.filter(pk=int(name_or_id)).first()
    if found is None:
        known = ", ".join(
            f"{pk}: {name}" for pk, name in records.values_list("pk", "name")[:KNOWN_SHOWN]
        )
        raise CommandError(
            f"There is no {what} named or numbered {name_or_id!r}; known (id: name): "
            f"{known or 'none yet'}."
        )
    return found
