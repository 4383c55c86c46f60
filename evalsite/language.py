"""Which language a dialogue or a page is in.

One test for "is this Chinese", so that every part of EvalSite agrees on it: a language code
such as ``zh``, ``zh-hans`` or ``zh_Hans`` (any case) is Chinese; anything else is not.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

# Django's forms end each label with gettext(":"); the Chinese catalog gives the full-width "：".
LABEL_SUFFIX = gettext_noop(":")


def is_chinese(lang: str | None) -> bool:
    """Whether the language code ``lang`` names Chinese (``zh``, ``zh-hans``, ``ZH_Hans``, ...)."""
    return (lang or "").lower().startswith("zh")
