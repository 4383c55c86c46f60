"""Each task card's dialogue language in a bilingual campaign, set on the campaign form.

A bilingual campaign holds every dialogue about a card in one language
(`Campaign.dialogue_lang`); judges are never asked. The campaign form gets one language field per
card (``card_lang_<pk>``), used only when the campaign is bilingual. The choice belongs to the
campaign (`Campaign.task_languages`, the same setting as the campaign page's), so another campaign
that uses the same card keeps its own; it is frozen once the campaign is past its draft.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from liveeval.models import DIALOGUE_LANGUAGES, Campaign, TaskCard

PREFIX = "card_lang_"


def field_name(card: TaskCard) -> str:
    return f"{PREFIX}{card.pk}"


def add_card_language_fields(form: forms.ModelForm[Campaign], cards: Iterable[TaskCard]) -> None:
    """One dialogue-language field per card, set to the card's language; frozen with the design
    of a campaign that is no longer a draft."""
    frozen = bool(form.instance.pk) and form.instance.status != Campaign.Status.DRAFT
    for index, card in enumerate(cards):
        form.fields[field_name(card)] = forms.ChoiceField(
            label=gettext("Dialogue language of “%(title)s” (%(key)s)")
            % {"title": card.title(card.lang), "key": card.key},
            choices=DIALOGUE_LANGUAGES,
            initial=form.instance.dialogue_lang(card) if form.instance.pk else card.lang,
            required=False,
            disabled=frozen,
            # Said once, above the first card, rather than under every one.
            help_text=_("Used when the campaign is bilingual.") if index == 0 else "",
        )


def chosen_languages(form: forms.ModelForm[Campaign], data: dict[str, Any]) -> dict[TaskCard, str]:
    """The language given to each chosen card (its own where the form left it empty)."""
    found: dict[TaskCard, str] = {}
    for card in data.get("tasks") or ():
        value = data.get(field_name(card)) or card.lang
        found[card] = str(value)
    return found


def save_card_languages(form: forms.ModelForm[Campaign], campaign: Campaign) -> None:
    """Keep the chosen cards' languages on the saved campaign when it is a bilingual draft."""
    if campaign.lang != Campaign.Lang.BILINGUAL or campaign.status != Campaign.Status.DRAFT:
        return
    campaign.task_languages = {
        str(card.pk): lang
        for card, lang in chosen_languages(form, form.cleaned_data).items()
        if lang != card.lang
    }
    campaign.save(update_fields=["task_languages"])
