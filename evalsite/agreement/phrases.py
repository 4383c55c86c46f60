"""Sentences of the statistics that can be shown in any interface language.

A `Phrase` is English text (a `str`, so the command line and the tests read it as before) that
also keeps its message id and named parameters. The page translates it when it shows it
(`shown`), so a report computed once in the background reads in each viewer's language. Message
ids are marked with ``gettext_noop`` where the phrase is built, so ``makemessages`` finds them.

Parameters are numbers, text, other phrases, or a `Listing` of names (codes such as
``alpha.llm_vs_humans``), which each language joins in its own way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Union

from django.utils.translation import gettext, gettext_noop, pgettext

Param = Union[str, int, float, "Listing", "Clauses"]


class Listing(tuple[str, ...]):
    """Names joined as a list: "a, b and c" in English, "a、b 和 c" in Chinese."""


class Clauses(tuple[str, ...]):
    """Clauses joined by semicolons ("a; b" in English, "a；b" in Chinese)."""


class Phrase(str):
    """English text that keeps its message id and parameters, to be translated when shown."""

    msgid: str
    params: Mapping[str, Param]

    def __new__(cls, msgid: str, **params: Param) -> Phrase:
        text = msgid % {key: _english(value) for key, value in params.items()} if params else msgid
        phrase = super().__new__(cls, text)
        phrase.msgid = msgid
        phrase.params = params
        return phrase

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.msgid, dict(self.params)))


def _rebuild(msgid: str, params: dict[str, Param]) -> Phrase:
    return Phrase(msgid, **params)


def _joined(words: Sequence[str], comma: str, last: str) -> str:
    if len(words) <= 1:
        return "".join(words)
    return f"{comma.join(words[:-1])}{last}{words[-1]}"


def _english(value: Param) -> Param:
    if isinstance(value, Listing):
        return _joined(value, ", ", " and ")
    if isinstance(value, Clauses):
        return "; ".join(value)
    return str(value) if isinstance(value, Phrase) else value


def shown(text: str) -> str:
    """``text`` in the active language when it is a `Phrase`; other text as it is."""
    if not isinstance(text, Phrase):
        return text
    if not text.params:
        return gettext(text.msgid)
    values: dict[str, Param] = {}
    for key, value in text.params.items():
        if isinstance(value, Listing):
            values[key] = _joined(
                [shown(word) for word in value],
                pgettext("list separator", ", "),
                pgettext("list, before its last item", " and "),
            )
        elif isinstance(value, Clauses):
            values[key] = pgettext("clause separator", "; ").join(shown(part) for part in value)
        else:
            values[key] = shown(value) if isinstance(value, str) else value
    return gettext(text.msgid) % values


def to_json(text: str) -> Any:
    """A phrase as {"msgid", "params"}; other text as it is."""
    if not isinstance(text, Phrase):
        return text
    params: dict[str, Any] = {}
    for key, value in text.params.items():
        if isinstance(value, Listing | Clauses):
            kind = "listing" if isinstance(value, Listing) else "clauses"
            params[key] = {kind: [to_json(word) for word in value]}
        else:
            params[key] = to_json(value) if isinstance(value, str) else value
    return {"msgid": text.msgid, "params": params}


def from_json(data: Any) -> str:
    """The text or phrase `to_json` wrote (a string for anything else)."""
    if not isinstance(data, dict) or not isinstance(data.get("msgid"), str):
        return str(data)
    params: dict[str, Param] = {}
    raw = data.get("params")
    for key, value in (raw if isinstance(raw, dict) else {}).items():
        if isinstance(value, dict) and isinstance(value.get("listing"), list):
            params[str(key)] = Listing(from_json(word) for word in value["listing"])
        elif isinstance(value, dict) and isinstance(value.get("clauses"), list):
            params[str(key)] = Clauses(from_json(word) for word in value["clauses"])
        elif isinstance(value, int | float):
            params[str(key)] = value
        else:
            params[str(key)] = from_json(value)
    return Phrase(data["msgid"], **params)


__all__ = ["Clauses", "Listing", "Phrase", "from_json", "gettext_noop", "shown", "to_json"]


def reason_of(error: Exception) -> str:
    """What an error says, keeping a `Phrase` it was raised with."""
    first = error.args[0] if error.args else None
    return first if isinstance(first, Phrase) else str(error)


def phrases_json(texts: Sequence[str]) -> list[Any]:
    """Texts as `to_json` writes them, to be stored beside their English form."""
    return [to_json(text) for text in texts]


def texts_of(data: Mapping[str, object], key: str) -> list[str]:
    """The texts under ``key``, as phrases where ``key + "_phrases"`` kept them."""
    texts = data.get(key)
    if not isinstance(texts, list):
        return []
    phrases = data.get(f"{key}_phrases")
    if isinstance(phrases, list) and len(phrases) == len(texts):
        return [from_json(item) for item in phrases]
    return [str(text) for text in texts]


def notes_text(notes: Sequence[str]) -> str:
    """Notes as one paragraph in the active language."""
    return " ".join(shown(note) for note in notes)


LEVEL_NAMES = {
    "nominal": gettext_noop("nominal"),
    "ordinal": gettext_noop("ordinal"),
    "interval": gettext_noop("interval"),
    "ratio": gettext_noop("ratio"),
}


def listed(words: Sequence[str]) -> str:
    """Words listed with the active language's separator ("a, b" or "a、b")."""
    return pgettext("list separator", ", ").join(shown(word) for word in words)


def level_name(level: str) -> str:
    """A measurement level (nominal, ordinal, interval, ratio) in the active language."""
    msgid = LEVEL_NAMES.get(level)
    return level if msgid is None else gettext(msgid)
