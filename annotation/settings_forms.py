"""The forms of an annotation campaign's settings: the campaign itself, a copy, gold answers."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from annotation import campaign_lifecycle, gold
from annotation.models import Campaign, Rubric, Transcript
from annotation.rubrics import default_rubric
from evalsite import roles


class RubricChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.name(get_language() or 'en')} ({obj.key} v{obj.version})"


class CampaignSettingsForm(forms.ModelForm[Campaign]):
    """A new campaign, or an existing one's settings; R never drops below the work held."""

    class Meta:
        model = Campaign
        fields = [
            "name",
            "rubric",
            "annotations_per_item",
            "instructions",
            "item_order",
            "annotators",
            "show_feelings",
            "hold_minutes",
            "alt_test_epsilon",
        ]
        widgets = {
            "annotators": forms.CheckboxSelectMultiple,
            "instructions": forms.Textarea(attrs={"rows": 6}),
        }
        field_classes = {"rubric": RubricChoiceField}
        labels = {"annotators": _("Team"), "rubric": _("Rubric")}
        help_texts = {
            "instructions": _(
                "Plain text shown to annotators. A blank line starts a paragraph; "
                "http(s) addresses and [text](https://…) become links. HTML is shown as text."
            ),
            "annotators": _(
                "The annotators who may work on this campaign. "
                "Leave every box empty to open it to every annotator."
            ),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        annotators = self.fields["annotators"]
        assert isinstance(annotators, forms.ModelMultipleChoiceField)
        annotators.queryset = (
            get_user_model()
            .objects.filter(groups__name=roles.ANNOTATORS, is_active=True)
            .order_by("username")
        )
        rubric = self.fields["rubric"]
        assert isinstance(rubric, forms.ModelChoiceField)
        if self.instance.pk is None:
            default_rubric()  # a new site has loaded no rubric yet: offer the CONCEPT one
        rubric.queryset = Rubric.objects.order_by("key", "-version")
        if self.instance.pk is None and "rubric" not in self.initial:
            self.initial["rubric"] = rubric.queryset.values_list("pk", flat=True).first()
        if self.instance.pk is not None and self.instance.has_responses():
            rubric.disabled = True
            rubric.help_text = _("The campaign already has annotations; its rubric is fixed.")

    def clean_annotations_per_item(self) -> int:
        r: int = self.cleaned_data["annotations_per_item"]
        lowest = campaign_lifecycle.lowest_r(self.instance)
        if r < 1:
            raise forms.ValidationError(_("R must be 1 or more."), code="r_positive")
        if r < lowest:
            raise forms.ValidationError(
                _(
                    "One item already has %(n)s annotations held or submitted, "
                    "so R cannot be lower than %(n)s."
                ),
                code="r_below_work",
                params={"n": lowest},
            )
        return r


class GoldForm(forms.Form):
    """Whether a transcript is a gold item, and its expected answer per dimension."""

    is_gold = forms.BooleanField(required=False, label=_("This is a gold item"))

    def __init__(self, *args: Any, transcript: Transcript, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.transcript = transcript
        self.questions = gold.questions_for(transcript, get_language() or "en")
        self.initial.setdefault("is_gold", transcript.is_gold)
        for question in self.questions:
            key = question.dimension.key
            self.fields[self.answer_name(key)] = forms.TypedChoiceField(
                label=question.dimension.name(get_language() or "en"),
                choices=[("", _("No expected answer")), *question.values],
                coerce=int,
                empty_value=None,
                required=False,
            )
            self.initial.setdefault(self.answer_name(key), transcript.gold.get(key))

    @staticmethod
    def answer_name(key: str) -> str:
        return f"gold_{key}"

    def answers(self) -> dict[str, int]:
        if not self.cleaned_data.get("is_gold"):
            return {}
        return {
            q.dimension.key: self.cleaned_data[self.answer_name(q.dimension.key)]
            for q in self.questions
            if self.cleaned_data.get(self.answer_name(q.dimension.key)) is not None
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("is_gold") and not self.errors and not self.answers():
            raise forms.ValidationError(
                _("A gold item needs at least one expected answer."), code="gold_empty"
            )
        return cleaned
