"""Text every database can store: no NUL characters and no lone surrogates.

SQLite keeps both; PostgreSQL refuses them with a raw database error, and a NUL in a chat
message used to close the judge's socket. Every path that stores outside text (chat
messages, system replies, imports) asks :func:`unstorable` first, or :func:`storable` to
clean text whose author cannot be asked again (a system's reply).
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def unstorable(text: str) -> str | None:
    """Why ``text`` cannot be stored, in words; None when it can."""
    if "\x00" in text:
        return _("it contains a NUL character (\\u0000)")
    if _SURROGATE.search(text):
        return _("it contains a lone surrogate (an unpaired \\ud800–\\udfff code point)")
    return None


def storable(text: str) -> str:
    """``text`` without NUL characters, and with lone surrogates replaced by U+FFFD."""
    return _SURROGATE.sub(REPLACEMENT, text.replace("\x00", ""))
