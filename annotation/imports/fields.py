"""Checks of single values read from an input, each raising `FieldError` with the value's path.

A path names the value as in the JSON shape (``turns[3].role``, ``persona.text``); every
reader checks its values with these, so the same mistake gets the same message in every format.
"""

from __future__ import annotations

import math
from typing import Any

from annotation.imports.problems import FieldError
from evalsite.storable_text import unstorable

ID_MAX_LENGTH = 255


def join_path(path: str, name: str | int) -> str:
    if isinstance(name, int):
        return f"{path}[{name}]"
    return f"{path}.{name}" if path else name


def check_string(value: Any, path: str, *, required: bool = False, max_length: int = 0) -> str:
    if value is None:
        if required:
            raise FieldError(path, "is required")
        return ""
    if not isinstance(value, str):
        raise FieldError(path, "must be a string")
    if required and not value.strip():
        raise FieldError(path, "must not be empty")
    if max_length and len(value) > max_length:
        raise FieldError(path, f"must be at most {max_length} characters")
    return value


def check_identifier(value: Any, path: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return check_string(value, path, required=True, max_length=ID_MAX_LENGTH).strip()


def check_boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise FieldError(path, "must be true or false")
    return value


def check_strings(value: Any, path: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise FieldError(path, "must be a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise FieldError(join_path(path, index), "must be a string")
    return list(value)


def check_number(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FieldError(path, "must be a number")
    if not math.isfinite(value):
        raise FieldError(path, "must be a finite number")
    return float(value)


def check_object(value: Any, path: str, allowed: set[str] | None = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FieldError(path, "must be an object")
    if allowed is not None:
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise FieldError(join_path(path, unknown[0]), "is not a known field")
    return value


def _all_storable(value: Any) -> bool:
    """Whether every string of ``value``, keys included, can be stored; no paths are built,
    so the rows that can be stored (nearly all) cost one walk."""
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if unstorable(item):
                return False
        elif isinstance(item, dict):
            for key, inner in item.items():
                if isinstance(key, str) and unstorable(key):
                    return False
                pending.append(inner)
        elif isinstance(item, list):
            pending.extend(item)
    return True


def check_storable(value: Any, path: str = "") -> None:
    """Every string of ``value``, keys included, can be stored by every database (no NUL, no
    lone surrogate); FieldError names the first that cannot, in document order."""
    if _all_storable(value):
        return
    pending: list[tuple[Any, str]] = [(value, path)]
    while pending:
        item, where = pending.pop()
        if isinstance(item, str):
            problem = unstorable(item)
            if problem:
                raise FieldError(where, f"cannot be stored: {problem}")
        elif isinstance(item, dict):
            for key in item:
                problem = unstorable(key) if isinstance(key, str) else None
                if problem:
                    raise FieldError(where, f"has a field name that cannot be stored: {problem}")
            pending.extend(reversed([(v, join_path(where, str(k))) for k, v in item.items()]))
        elif isinstance(item, list):
            pending.extend(reversed([(v, join_path(where, n)) for n, v in enumerate(item)]))
