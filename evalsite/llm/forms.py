"""The endpoint form: where an OpenAI-compatible model is and how hard to call it.

Every page that starts an LLM job (the evaluator, the simulated judges) extends it with its
own fields. The endpoint is one of the operator's named credentials
(:mod:`evalsite.llm.credentials`): a page never names a URL, a key or the variable holding one.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from evalsite.llm.config import LLMConfig
from evalsite.llm.credentials import credentials
from evalsite.llm.errors import LLMConfigError

NO_ENDPOINT = _(
    "No LLM endpoint is configured on this server, so nothing can be sent to a model yet. "
    "The operator names the endpoints in EVALSITE_LLM_KEYS and restarts the server."
)


class EndpointForm(forms.Form):
    """Which named credential reaches the model and how hard to call it; never a key or URL."""

    credential = forms.ChoiceField(
        label=_("Endpoint"),
        help_text=_(
            "One of the endpoints the operator configured (EVALSITE_LLM_KEYS); "
            "each has its own key and address."
        ),
    )
    model = forms.CharField(label=_("Model"), max_length=200)
    concurrency = forms.IntegerField(
        label=_("Requests at once"), min_value=1, max_value=64, initial=4
    )
    price_per_1k_prompt = forms.DecimalField(
        label=_("Price per 1,000 prompt tokens"), required=False, min_value=Decimal(0)
    )
    price_per_1k_completion = forms.DecimalField(
        label=_("Price per 1,000 completion tokens"), required=False, min_value=Decimal(0)
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["credential"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(item.name, f"{item.name} ({item.base_url})") for item in credentials()]
        if not field.choices:
            # Say why nothing can be chosen, before and after a try, rather than "required".
            field.help_text = NO_ENDPOINT
            field.error_messages["required"] = NO_ENDPOINT

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
            "credential": data["credential"],
            "model": data["model"].strip(),
            "concurrency": data["concurrency"],
        }
        for key in ("price_per_1k_prompt", "price_per_1k_completion"):
            if data.get(key) is not None:
                settings[key] = str(data[key])
        return settings
