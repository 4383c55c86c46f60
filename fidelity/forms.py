"""The coordinator's forms: a new study, its files and catalog, and a simulator."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.imports.limits import within_upload_limit
from annotation.models import Catalog
from evalsite.llm.forms import EndpointForm
from fidelity.models import Simulator, Study


class StudyForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Study
        fields = ["name", "language", "catalog", "seed"]


class CatalogForm(forms.Form):
    catalog = forms.ModelChoiceField(
        label=_("Item catalog"),
        queryset=Catalog.objects.all(),
        required=False,
        help_text=_(
            "Titles in answers are found in this catalog; without one, in the study's items."
        ),
    )


class ItemsUploadForm(forms.Form):
    items = forms.FileField(
        label=_("Items (CSV)"),
        help_text=_("Columns item_id, title, avg_rating, n_ratings."),
        validators=[within_upload_limit],
    )


class RequestsUploadForm(forms.Form):
    requests = forms.FileField(
        label=_("Requests (JSONL)"),
        help_text=_('One object per line: "id", "request", "answer_items", "answer_text".'),
        validators=[within_upload_limit],
    )


class SimulatorForm(EndpointForm):
    label = forms.CharField(
        label=_("Label"),
        max_length=80,
        help_text=_("The simulator's name in the report, such as gpt-4o DI+PP."),
    )
    configuration = forms.ChoiceField(
        label=_("Configuration"), choices=Simulator.Configuration.choices
    )

    def __init__(self, *args: Any, study: Study, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.study = study

    def clean_label(self) -> str:
        label = str(self.cleaned_data["label"]).strip()
        if label == "people":
            raise forms.ValidationError(_("“people” is the people's group; choose another label."))
        if self.study.simulators.filter(label=label).exists():
            raise forms.ValidationError(_("This study already has a simulator with this label."))
        return label
