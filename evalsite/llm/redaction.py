"""API keys cut out of whatever an LLM endpoint says, before it is stored or shown.

A provider may echo the key it was sent in its error message, whole ("Incorrect API key
provided: sk-proj-abc…") or masked ("sk-proj-****…wxyz"). Every :class:`LLMError` passes its
reason through :func:`redact`, so neither a call's record, a job's message, a system's
notice nor a log line can carry a key. What is cut:

- every configured key (each ``EVALSITE_LLM_KEYS`` credential's, and the key in use, which a
  management command may have named by its own variable), wherever it appears;
- any run of :data:`SHARED_RUN` or more characters of such a key (a truncated echo);
- a masked shape of such a key: a word holding ``*``, ``…`` or ``..`` that begins with the
  key's first four characters or ends with its last four;
- any word shaped like an OpenAI key (``sk-`` and at least four more characters), whoever's
  it is.

Each is replaced by :data:`MASK`, the same in every language.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

MASK = "***"
# A shorter run of a key's characters is too likely to occur by chance in ordinary words.
SHARED_RUN = 8
# Keys shorter than this are replaced only whole: their pieces are too short to mean anything.
SHAPED_KEY = 12
_WORD = re.compile(r"[\w\-*…]+(?:\.{2,}[\w\-*…]*)*")
_OPENAI_KEY = re.compile(r"^sk-[\w\-*….]{4,}$")
_MASKING = ("*", "…", "..")


def configured_keys(*env_vars: str) -> list[str]:
    """The keys the operator configured, and those held by ``env_vars``, longest first."""
    from evalsite.llm.credentials import credentials

    names = {credential.env_var for credential in credentials() if credential.env_var}
    names.update(name for name in env_vars if name)
    keys = {os.environ.get(name, "").strip() for name in names}
    return sorted((key for key in keys if key), key=len, reverse=True)


def redact(text: str, keys: Iterable[str]) -> str:
    """``text`` with every key of ``keys``, and every piece or shape of one, replaced."""
    keys = [key for key in keys if key]
    for key in keys:
        text = text.replace(key, MASK)
    shaped = [key for key in keys if len(key) >= SHAPED_KEY]
    return _WORD.sub(lambda match: _masked_word(match.group(), shaped), text)


def _masked_word(word: str, keys: list[str]) -> str:
    if _OPENAI_KEY.match(word) or any(_is_shape_of(word, key) for key in keys):
        return MASK
    return word


def _is_shape_of(word: str, key: str) -> bool:
    if any(mark in word for mark in _MASKING) and (
        word.startswith(key[:4]) or word.endswith(key[-4:])
    ):
        return True
    return any(
        word[start : start + SHARED_RUN] in key for start in range(len(word) - SHARED_RUN + 1)
    )
