"""Template filters for statistics text: ``shown`` (a `Phrase` in the reader's language),
``listed`` (names with the reader's list separator) and ``level`` (a measurement level)."""

from __future__ import annotations

from django import template

from evalsite.agreement.phrases import level_name
from evalsite.agreement.phrases import listed as listed_words
from evalsite.agreement.phrases import shown as shown_phrase
from evalsite.persona_names import persona_name

register = template.Library()


@register.filter
def shown(text: object) -> object:
    return shown_phrase(text) if isinstance(text, str) else text


@register.filter
def listed(words: object) -> object:
    """``{{ names|listed }}``: names listed with the reader's separator."""
    if isinstance(words, list | tuple):
        return listed_words([str(word) for word in words])
    return words


@register.filter
def level(name: object) -> object:
    """``{{ block.level|level }}``: a measurement level in the reader's language."""
    return level_name(name) if isinstance(name, str) else name


@register.filter
def label_of(labels: object, key: object) -> object:
    """``{{ labels|label_of:key }}``: the label a mapping gives ``key``, or the key itself."""
    return labels.get(key, key) if isinstance(labels, dict) else key


@register.filter
def persona(name: object) -> object:
    """``{{ transcript.persona_emotion|persona }}``: a CONCEPT persona name in the reader's
    language."""
    return persona_name(name) if isinstance(name, str) else name
