"""The coordinator's forms: a new study, its files and catalog, the prompts to draw, and a
simulator."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.imports.limits import within_upload_limit
from annotation.models import Catalog
from evalsite.llm.forms import EndpointForm
from fidelity.models import Simulator, Study, Task
from fidelity.prompts import PromptCounts

# Each task's count field: its label, and its default in PromptCounts.
_COUNT_FIELDS = {
    Task.ITEMS_TALK: ("items_talk", _("Items talk: personas")),
    Task.BIN_PREF: ("bin_pref", _("Binary preference: items asked about")),
    Task.OPEN_PREF: ("open_pref", _("Open preference: items to review")),
    Task.REC_REQUEST: ("rec_request", _("Recommendation request: sets of liked items")),
    Task.FEEDBACK: (
        "feedback_requests",
        _("Feedback: requests (each gives an accept, a reject and a comparison prompt)"),
    ),
}


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
    temperature = forms.FloatField(
        label=_("Temperature"),
        min_value=0.0,
        max_value=2.0,
        required=False,
        help_text=_("Sampling temperature, 0 to 2; empty for 0 (the most repeatable)."),
    )

    def __init__(
        self, *args: Any, study: Study, instance: Simulator | None = None, **kwargs: Any
    ) -> None:
        if instance is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                **instance.llm,
                "label": instance.label,
                "configuration": instance.configuration,
            }
        super().__init__(*args, **kwargs)
        self.study = study
        self.instance = instance

    def clean_label(self) -> str:
        label = str(self.cleaned_data["label"]).strip()
        if label == "people":
            raise forms.ValidationError(_("“people” is the people's group; choose another label."))
        others = self.study.simulators.filter(label=label)
        if self.instance is not None:
            others = others.exclude(pk=self.instance.pk)
        if others.exists():
            raise forms.ValidationError(_("This study already has a simulator with this label."))
        return label

    @staticmethod
    def llm_settings(data: dict[str, Any]) -> dict[str, Any]:
        """The endpoint's settings, with the temperature when one is given."""
        settings = EndpointForm.llm_settings(data)
        if data.get("temperature"):
            settings["temperature"] = data["temperature"]
        return settings


class PromptsForm(forms.Form):
    """Which tasks to draw and how many prompts each; no more than the study's data allows."""

    tasks = forms.MultipleChoiceField(
        label=_("Tasks"), choices=Task.choices, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: Any, study: Study, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.study = study
        self.n_items = study.items.count()
        self.n_requests = study.requests.count()
        defaults = PromptCounts()
        self.fields["tasks"].initial = list(Task.values)
        for name, label in _COUNT_FIELDS.values():
            default = getattr(defaults, name)
            self.fields[name] = forms.IntegerField(
                label=label,
                min_value=1,
                max_value=10_000,
                initial=min(default, self._most(name) or default),
                required=False,
            )

    def _most(self, name: str) -> int | None:
        """The most prompts the data allows for ``name``'s task, or None when unbounded."""
        if name in ("bin_pref", "open_pref"):
            return self.n_items
        if name == "feedback_requests":
            return self.n_requests
        return None

    def _check(self, name: str, count: int | None) -> None:
        counts = PromptCounts()
        if count is None:
            self.add_error(name, _("Say how many prompts to draw for this task."))
        elif name in ("items_talk", "rec_request") and self.n_items < counts.items_per_persona:
            self.add_error(
                name,
                _("The study has %(items)d items; this task needs at least %(needed)d.")
                % {"items": self.n_items, "needed": counts.items_per_persona},
            )
        elif name == "feedback_requests" and self.n_requests < 2:
            self.add_error(name, _("Feedback needs at least two requests in the study."))
        elif name == "feedback_requests" and count > self.n_requests:
            self.add_error(
                name,
                _("At most %(most)d: the study has %(most)d requests.") % {"most": self.n_requests},
            )
        elif name in ("bin_pref", "open_pref") and count > self.n_items:
            self.add_error(
                name, _("At most %(most)d: the study has %(most)d items.") % {"most": self.n_items}
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for task in data.get("tasks") or ():
            name = _COUNT_FIELDS[Task(task)][0]
            self._check(name, data.get(name))
        return data

    def counts(self) -> PromptCounts:
        """The counts to draw: the chosen tasks' own, and none for the others."""
        chosen = {_COUNT_FIELDS[Task(task)][0] for task in self.cleaned_data["tasks"]}
        counts = {
            name: (self.cleaned_data[name] if name in chosen else 0)
            for name, _label in _COUNT_FIELDS.values()
        }
        return PromptCounts(**counts)
