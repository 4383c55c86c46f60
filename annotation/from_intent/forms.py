"""The form that sends an intent track's split to an annotation campaign."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from intent.models import Utterance


class SendUtterancesForm(forms.Form):
    split = forms.ChoiceField(label=_("Split"), choices=Utterance.Split.choices, initial="dev")
    campaign = forms.CharField(
        label=_("Annotation campaign"),
        max_length=200,
        help_text=_("A new name makes a new campaign with the track's labels as the question."),
    )
