"""``{{ note|shown }}``: a statistics `Phrase` in the reader's language (other text as it is)."""

from __future__ import annotations

from django import template

from evalsite.agreement.phrases import shown as shown_phrase

register = template.Library()


@register.filter
def shown(text: object) -> object:
    return shown_phrase(text) if isinstance(text, str) else text
