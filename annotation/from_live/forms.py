"""The form that sends a live campaign's ended dialogues to an annotation campaign."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy

from liveeval.models import ChatSession


class SendForm(forms.Form):
    annotation_campaign = forms.CharField(
        label=gettext_lazy("Annotation campaign"),
        max_length=200,
        help_text=gettext_lazy("Made with the default rubric if there is none by that name."),
    )
    kinds = forms.MultipleChoiceField(
        label=gettext_lazy("Dialogues"),
        choices=[
            (ChatSession.Kind.SIMULATED, gettext_lazy("Simulated judges")),
            (ChatSession.Kind.JUDGED, gettext_lazy("Human judges")),
        ],
        initial=[ChatSession.Kind.SIMULATED],
        widget=forms.CheckboxSelectMultiple,
    )
