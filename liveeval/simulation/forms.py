"""The form that starts simulated judges: the endpoint, the personas, the tasks and systems."""

from __future__ import annotations

import itertools
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from evalsite.llm.forms import EndpointForm
from evalsite.persona_names import AGE_GROUP_NAMES, EMOTION_NAMES
from liveeval.models import Campaign, DialogueSystem, TaskCard
from liveeval.simulation.personas import AGE_GROUPS, EMOTIONS, Persona


class SimulationForm(EndpointForm):
    emotions = forms.MultipleChoiceField(
        label=gettext_lazy("Emotions"),
        choices=[(name, EMOTION_NAMES[name]) for name in EMOTIONS],
        widget=forms.CheckboxSelectMultiple,
    )
    age_groups = forms.MultipleChoiceField(
        label=gettext_lazy("Age groups"),
        choices=[(name, AGE_GROUP_NAMES[name]) for name in AGE_GROUPS],
        widget=forms.CheckboxSelectMultiple,
    )
    tasks = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Tasks"),
        queryset=TaskCard.objects.none(),
        to_field_name="key",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("None chosen: every task of the campaign."),
    )
    systems = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Systems"),
        queryset=DialogueSystem.objects.none(),
        to_field_name="slug",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy(
            "None chosen: every system of the campaign. The simulated judge never learns "
            "which system it talks to."
        ),
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fields: dict[str, Any] = {
            "tasks": campaign.tasks.order_by("key"),
            "systems": campaign.systems.order_by("slug"),
        }
        for name, queryset in fields.items():
            field = self.fields[name]
            assert isinstance(field, forms.ModelMultipleChoiceField)
            field.queryset = queryset

    def personas(self) -> list[Persona]:
        return [
            Persona(emotion, age)
            for emotion, age in itertools.product(
                self.cleaned_data["emotions"], self.cleaned_data["age_groups"]
            )
        ]
