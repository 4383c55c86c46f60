"""The form that names a copy of a campaign, of either kind, and the free name it proposes."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


def copy_name(model: Any, name: str) -> str:
    """A name no campaign of ``model`` has: "<name> (copy)", then "(copy 2)", "(copy 3)"…"""
    candidate, n = gettext("%(name)s (copy)") % {"name": name}, 1
    while model.objects.filter(name=candidate).exists():
        n += 1
        candidate = gettext("%(name)s (copy %(n)s)") % {"name": name, "n": n}
    return candidate[:200]


class CloneForm(forms.Form):
    """The copy's name, proposed free, and checked free again when the copy is made."""

    name = forms.CharField(max_length=200, label=_("Name of the copy"))

    def __init__(self, *args: Any, model: Any, original: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.model = model
        self.initial.setdefault("name", copy_name(model, original))

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        if self.model.objects.filter(name=name).exists():
            raise forms.ValidationError(
                _("A campaign with this name exists; choose another."), code="exists"
            )
        return name
