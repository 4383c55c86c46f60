"""Each task card's dialogue language, set by the coordinator on the campaign form.

A bilingual campaign holds every dialogue about a card in that card's language
(`Campaign.dialogue_lang`); judges are never asked. The campaign form gets one language field per
card (``card_lang_<pk>``), used only when the campaign is bilingual. A card's language belongs to
the card, so it cannot change while another bilingual campaign that is no longer a draft uses it:
the dialogues planned there would change language under their judges.
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
            initial=card.lang,
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


def clean_card_languages(form: forms.ModelForm[Campaign], data: dict[str, Any]) -> None:
    """Refuse a change of language for a card that another bilingual campaign, past its draft,
    holds dialogues in."""
    if data.get("lang") != Campaign.Lang.BILINGUAL:
        return
    for card, lang in chosen_languages(form, data).items():
        if lang == card.lang:
            continue
        others = (
            Campaign.objects.filter(tasks=card, lang=Campaign.Lang.BILINGUAL)
            .exclude(status=Campaign.Status.DRAFT)
            .exclude(pk=form.instance.pk)
            .order_by("name")
        )
        busy = others.first()
        if busy is not None:
            form.add_error(
                field_name(card),
                forms.ValidationError(
                    _(
                        "The campaign “%(campaign)s” holds dialogues about this card in its "
                        "current language, so the language cannot change."
                    ),
                    code="card_lang_in_use",
                    params={"campaign": busy.name},
                ),
            )


def save_card_languages(form: forms.ModelForm[Campaign], campaign: Campaign) -> None:
    """Store the chosen cards' languages when the saved campaign is bilingual."""
    if campaign.lang != Campaign.Lang.BILINGUAL:
        return
    for card, lang in chosen_languages(form, form.cleaned_data).items():
        if lang != card.lang:
            card.lang = lang
            card.save(update_fields=["lang"])
