"""The adjudication form and the form that names a campaign's adjudicators."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from annotation.models import AdjudicationReason, Dimension
from evalsite.language import is_chinese


class ReasonChoice(forms.ModelChoiceField):  # type: ignore[type-arg]
    def label_from_instance(self, obj: Any) -> str:
        return str(obj.label_zh if is_chinese(get_language() or "") else obj.label_en)


class AdjudicationForm(forms.Form):
    score = forms.TypedChoiceField(label=_("Resolved score"), coerce=int)
    reason = ReasonChoice(label=_("Reason"), queryset=AdjudicationReason.objects.all())
    note = forms.CharField(
        label=_("Note"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )

    def __init__(self, *args: Any, dimension: Dimension, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["score"].choices = [  # type: ignore[attr-defined]
            (value, str(value)) for value in range(dimension.scale_min, dimension.scale_max + 1)
        ]


class AdjudicatorsForm(forms.Form):
    adjudicators = forms.ModelMultipleChoiceField(
        label=_("Adjudicators"),
        queryset=User.objects.filter(is_active=True).order_by("username"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "They see every score and the LLM's rationale, on the adjudication pages only. "
            "So that no annotator sees LLM scores while annotating, an adjudicator gets no new "
            "items of this campaign, and cannot adjudicate while still holding one: name "
            "annotators here once they have finished."
        ),
    )
