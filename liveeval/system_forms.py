"""The forms that add and edit a system under test, one per family of kinds.

A form's settings become the system's ``config`` and are checked by
:func:`liveeval.systems.configuration.check_config`, the same check as the
``add_system`` command's, with each error shown on the field it is about.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from evalsite.llm.credentials import credentials
from liveeval.models import DialogueSystem
from liveeval.systems.configuration import SystemConfigError, check_config, free_alias

FAMILIES = ("builtin", "http", "openai")
BUILT_IN_KINDS = [
    (DialogueSystem.Kind.REFERENCE.value, DialogueSystem.Kind.REFERENCE.label),
    (DialogueSystem.Kind.BASELINE.value, DialogueSystem.Kind.BASELINE.label),
]


def family_of(kind: str) -> str:
    """The form family of a system kind: the two built-in kinds share one form."""
    return kind if kind in ("http", "openai") else "builtin"


def _http_fields() -> dict[str, forms.Field]:
    return {
        "endpoint": forms.CharField(
            label=_("Endpoint URL"),
            max_length=500,
            help_text=_("EvalSite POSTs each user message here (docs/system-protocol.md)."),
        ),
        "timeout": forms.FloatField(
            label=_("Reply timeout (seconds)"),
            required=False,
            help_text=_("How long to wait for one reply; 10 s when left empty."),
        ),
    }


def _openai_fields() -> dict[str, forms.Field]:
    # The endpoint is one of the operator's named credentials: a page never takes a key,
    # the name of a variable holding one, or a URL a key would be sent to.
    named = [(item.name, f"{item.name} ({item.base_url})") for item in credentials()]
    return {
        "credential": forms.ChoiceField(
            label=_("Endpoint"),
            choices=named,
            help_text=_(
                "One of the endpoints the operator configured (EVALSITE_LLM_KEYS); "
                "each has its own key and address."
            ),
        ),
        "model": forms.CharField(label=_("Model"), max_length=200),
        "temperature": forms.FloatField(label=_("Temperature"), required=False),
        "seed": forms.IntegerField(label=_("Seed"), required=False),
        "max_tool_rounds": forms.IntegerField(label=_("Tool rounds per message"), required=False),
        "system_prompt": forms.CharField(
            label=_("System prompt"),
            required=False,
            widget=forms.Textarea(attrs={"rows": 6}),
            help_text=_("Leave empty for the built-in booking assistant's prompt."),
        ),
    }


class SystemForm(forms.ModelForm[DialogueSystem]):
    """A system's names and, for its family, the settings its adapter reads."""

    class Meta:
        model = DialogueSystem
        fields = ["slug", "name", "alias", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args: Any, family: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.family = family
        self.fields["alias"].required = False
        self.fields["alias"].help_text = _(
            "The system's short name on coordinators' pages and in exports; the next free "
            "'System X' when left empty. Judges never see it: in each campaign a system is "
            "shown under a random code of its own, such as 'System 042'."
        )
        self.fields["name"].required = False
        if self.instance.pk:
            self.fields["slug"].disabled = True
        settings: dict[str, forms.Field] = {}
        if family == "builtin":
            settings["kind"] = forms.ChoiceField(label=_("Kind"), choices=BUILT_IN_KINDS)
        elif family == "http":
            settings = _http_fields()
        else:
            settings = _openai_fields()
        self.setting_names = [name for name in settings if name != "kind"]
        for name, field in settings.items():
            self.fields[name] = field
            if self.instance.pk:
                self.initial[name] = (
                    self.instance.kind if name == "kind" else self.instance.config.get(name)
                )

    def kind(self) -> str:
        if self.family == "builtin":
            return str(self.cleaned_data.get("kind") or DialogueSystem.Kind.REFERENCE)
        return self.family

    def config(self) -> dict[str, Any]:
        """The settings given, as the adapter's ``config``; empty ones take its defaults."""
        values = {name: self.cleaned_data.get(name) for name in self.setting_names}
        return {name: value for name, value in values.items() if value not in (None, "")}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if any(name in self.errors for name in self.setting_names):
            return data
        try:
            check_config(self.kind(), self.config())
        except SystemConfigError as error:
            field = error.key if error.key in self.fields else None
            self.add_error(field, forms.ValidationError(str(error), code="config"))
        return data

    def save(self, commit: bool = True) -> DialogueSystem:
        system = super().save(commit=False)
        system.kind = self.kind()
        system.config = self.config()
        system.name = system.name or system.slug
        system.alias = system.alias or free_alias()
        if commit:
            system.save()
        return system
