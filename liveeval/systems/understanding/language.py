"""Which language a booking message is written in, and the normal form it is read in."""

from __future__ import annotations

import re
import unicodedata


def normalise(text: str) -> str:
    """Full-width digits and punctuation folded to ASCII, lower case, curly quotes straightened."""
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'").replace("‘", "'")


_CJK = re.compile(r"[\u4e00-\u9fff]")


_NEUTRAL_TOKEN = re.compile(r"^(?:ok|[a-z]{0,2}\d+[a-z]?)$")


def detect_lang(text: str, fallback: str = "zh") -> str:
    """``zh`` when the message has Chinese characters, ``en`` when it has English words.

    Flight and train numbers and a bare "OK" say nothing about the language, so a message
    made only of them keeps the fallback (the previous message's language).
    """
    normal = normalise(text)
    if _CJK.search(normal):
        return "zh"
    words = re.findall(r"[a-z0-9']+", normal)
    if any(re.search(r"[a-z]", word) and not _NEUTRAL_TOKEN.match(word) for word in words):
        return "en"
    return fallback if fallback in ("zh", "en") else "zh"
