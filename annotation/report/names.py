"""How the report page names dimensions and systems, in the reader's language."""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from annotation.report.dimensions import POOLED
from evalsite.language import is_chinese


def system_label(value: str) -> str:
    return value or _("(none)")


def dimension_names(result: dict[str, Any]) -> dict[str, str]:
    chinese = is_chinese(get_language())
    names = {
        spec["key"]: spec["name_zh"] if chinese else spec["name_en"]
        for spec in result["dimensions"]
    }
    names[POOLED] = _("All (pooled)")
    return names
