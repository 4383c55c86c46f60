"""The endpoint form: where an OpenAI-compatible model is and how hard to call it.

Every page that starts an LLM job (the evaluator, the simulated judges) extends it with its
own fields; it never holds the key itself, only the name of the variable that does.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMConfigError


class EndpointForm(forms.Form):
    """Where an OpenAI-compatible model is and how hard to call it; never the key itself."""

    base_url = forms.URLField(
        label=_("Base URL"),
        help_text=_(
            "The OpenAI-compatible endpoint, e.g. https://api.openai.com/v1, "
            "http://127.0.0.1:8001/v1 (vLLM) or http://127.0.0.1:11434/v1 (Ollama)."
        ),
        assume_scheme="https",
    )
    model = forms.CharField(label=_("Model"), max_length=200)
    api_key_env = forms.CharField(
        label=_("API key variable"),
        required=False,
        max_length=100,
        help_text=_(
            "The name of the server's environment variable that holds the key; "
            "leave empty for local servers."
        ),
    )
    concurrency = forms.IntegerField(
        label=_("Requests at once"), min_value=1, max_value=64, initial=4
    )
    price_per_1k_prompt = forms.DecimalField(
        label=_("Price per 1,000 prompt tokens"), required=False, min_value=Decimal(0)
    )
    price_per_1k_completion = forms.DecimalField(
        label=_("Price per 1,000 completion tokens"), required=False, min_value=Decimal(0)
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            LLMConfig.from_config(self.llm_settings(data))
        except LLMConfigError as error:
            raise forms.ValidationError(str(error), code="llm_settings") from None
        return data

    @staticmethod
    def llm_settings(data: dict[str, Any]) -> dict[str, Any]:
        """The cleaned fields as ``LLMConfig`` settings (prices as text, to store in JSON)."""
        settings: dict[str, Any] = {
            "base_url": data["base_url"],
            "model": data["model"].strip(),
            "concurrency": data["concurrency"],
        }
        if data.get("api_key_env"):
            settings["api_key_env"] = data["api_key_env"].strip()
        for key in ("price_per_1k_prompt", "price_per_1k_completion"):
            if data.get(key) is not None:
                settings[key] = str(data[key])
        return settings
