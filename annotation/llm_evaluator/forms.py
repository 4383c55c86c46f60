"""The form that starts an LLM evaluator: the endpoint, and the label of its scores."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.alignment.versions import MAX_FEW_SHOT
from annotation.llm_evaluator.job import evaluator_name
from annotation.llm_evaluator.prompt import PROMPT_VERSION
from evalsite.llm.forms import EndpointForm


class ScoringForm(EndpointForm):
    label = forms.CharField(
        label=_("Evaluator label"),
        required=False,
        max_length=40,
        help_text=lazy(
            lambda: (
                gettext(
                    "Optional. The scores are stored as <label>:<model>@%(version)s, "
                    "or <model>@%(version)s without a label."
                )
                % {"version": PROMPT_VERSION}
            ),
            str,
        )(),
    )

    temperature = forms.FloatField(
        label=_("Temperature"), min_value=0.0, max_value=2.0, initial=0.0, required=False
    )
    seed = forms.IntegerField(label=_("Seed"), min_value=0, required=False, initial=42)
    few_shot = forms.IntegerField(
        label=_("Few-shot examples"),
        min_value=0,
        max_value=MAX_FEW_SHOT,
        initial=0,
        required=False,
        help_text=_(
            "Scored conversations shown in the prompt, taken from the calibration split only."
        ),
    )

    @staticmethod
    def llm_settings(data: dict[str, Any]) -> dict[str, Any]:
        settings = EndpointForm.llm_settings(data)
        settings["temperature"] = data.get("temperature") or 0.0
        settings["seed"] = data.get("seed")
        return settings

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors:
            try:
                evaluator_name(data["model"], data.get("label", ""))
            except ValueError as error:
                self.add_error("label", str(error))
        return data
