"""A management command's output, as text or as strict JSON, for the command tests."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

from django.core.management import call_command


def command_output(name: str, *arguments: str) -> str:
    out = StringIO()
    call_command(name, *arguments, stdout=out)
    return out.getvalue()


def command_json(name: str, *arguments: str) -> dict[str, Any]:
    """The command's JSON output. ``json.loads`` accepts NaN and Infinity, which JSON does
    not allow; here they fail the test."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"the output holds {constant}")

    result: dict[str, Any] = json.loads(command_output(name, *arguments), parse_constant=refuse)
    return result
