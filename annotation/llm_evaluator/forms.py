"""The form that starts an LLM evaluator: the endpoint, and the label of its scores."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.llm_evaluator.job import evaluator_name
from annotation.llm_evaluator.prompt import PROMPT_VERSION
from evalsite.llm.forms import EndpointForm


class ScoringForm(EndpointForm):
    label = forms.CharField(
        label=_("Evaluator label"),
        required=False,
        max_length=40,
        help_text=_(
            "Optional. The scores are stored as <label>:<model>@%(version)s, "
            "or <model>@%(version)s without a label."
        )
        % {"version": PROMPT_VERSION},
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors:
            try:
                evaluator_name(data["model"], data.get("label", ""))
            except ValueError as error:
                self.add_error("label", str(error))
        return data
