from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from django import forms
from django.forms import BoundField
from django.utils.translation import gettext_lazy as _

from annotation.imports.formats import HEAD_BYTES, FormatError, detect_format
from annotation.imports.limits import within_upload_limit
from annotation.models import Assignment, Campaign, Dimension, Response
from annotation.queue import MAX_TIME_ON_TASK_MS, Answer
from evalsite.storable_text import unstorable

MAX_RATIONALE = 5000


@dataclass(frozen=True)
class Option:
    value: int
    label: str
    description: str
    input_id: str
    checked: bool


@dataclass(frozen=True)
class Question:
    """One rubric question as the workspace shows it, with its levels as the options."""

    dimension: Dimension
    name: str
    title: str
    text: str
    options: list[Option]
    rationale: BoundField | None
    errors: list[str]
    position: int
    text_box: BoundField | None = None


class AnswerForm(forms.Form):
    """The answers to every rubric question asked about one item, plus its time on task.

    Options carry the value *as shown*; pairwise answers are turned into the item's own terms
    by the assignment, which knows which side each response was shown on.
    """

    time_on_task_ms = forms.IntegerField(
        required=False, min_value=0, widget=forms.HiddenInput, label=_("time on task")
    )
    shown_at = forms.IntegerField(
        required=False, min_value=0, widget=forms.HiddenInput, label=_("shown at")
    )

    def __init__(
        self,
        *args: Any,
        assignment: Assignment,
        dimensions: list[Dimension],
        lang: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.assignment = assignment
        self.dimensions = dimensions
        self.lang = lang
        for dimension in dimensions:
            if dimension.is_text:
                self.fields[self.answer_name(dimension)] = _text_field(dimension, lang)
                continue
            self.fields[self.answer_name(dimension)] = forms.TypedChoiceField(
                label=dimension.question(lang),
                choices=[(str(level.value), level.label(lang)) for level in dimension.levels.all()],
                coerce=int,
                widget=forms.RadioSelect,
                error_messages={"required": _("Choose an answer.")},
            )
            if dimension.rationale != Dimension.Rationale.NONE:
                self.fields[self.rationale_name(dimension)] = forms.CharField(
                    label=_("Why?"),
                    required=dimension.rationale == Dimension.Rationale.REQUIRED,
                    max_length=MAX_RATIONALE,
                    widget=forms.Textarea(attrs={"rows": 2}),
                )
        if not self.is_bound and "shown_at" not in self.initial:
            self.initial["shown_at"] = int(time.time() * 1000)

    @staticmethod
    def answer_name(dimension: Dimension) -> str:
        return f"answer_{dimension.key}"

    @staticmethod
    def rationale_name(dimension: Dimension) -> str:
        return f"rationale_{dimension.key}"

    @classmethod
    def initial_from(cls, assignment: Assignment, responses: list[Response]) -> dict[str, Any]:
        """The form's initial data when an annotator revises their submitted answers."""
        initial: dict[str, Any] = {}
        for response in responses:
            if response.dimension.is_text:
                initial[cls.answer_name(response.dimension)] = response.text
                continue
            initial[cls.answer_name(response.dimension)] = assignment.as_shown(
                response.dimension, response.value
            )
            initial[cls.rationale_name(response.dimension)] = response.rationale
        return initial

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        measured = cleaned.get("time_on_task_ms")
        if measured is None and not self.has_error("time_on_task_ms"):
            # Without JavaScript the page cannot measure; the time since it was served stands in.
            shown_at = cleaned.get("shown_at")
            measured = int(time.time() * 1000) - shown_at if shown_at else 0
        if measured is not None:
            cleaned["time_on_task_ms"] = max(0, min(MAX_TIME_ON_TASK_MS, measured))
        return cleaned

    def answers(self) -> list[Answer]:
        return [
            Answer(
                dimension=dimension, value=0, text=self.cleaned_data[self.answer_name(dimension)]
            )
            if dimension.is_text
            else Answer(
                dimension=dimension,
                value=self.assignment.as_stored(
                    dimension, self.cleaned_data[self.answer_name(dimension)]
                ),
                rationale=self.cleaned_data.get(self.rationale_name(dimension), "").strip(),
            )
            for dimension in self.dimensions
        ]

    def questions(self) -> list[Question]:
        questions: list[Question] = []
        for position, dimension in enumerate(self.dimensions, start=1):
            bound = self[self.answer_name(dimension)]
            if dimension.is_text:
                questions.append(
                    Question(
                        dimension=dimension,
                        name=bound.html_name,
                        title=dimension.name(self.lang),
                        text=dimension.question(self.lang),
                        options=[],
                        rationale=None,
                        errors=[str(error) for error in bound.errors],
                        position=position,
                        text_box=bound,
                    )
                )
                continue
            chosen = str(bound.value()) if bound.value() not in (None, "") else None
            options = [
                Option(
                    value=level.value,
                    label=level.label(self.lang),
                    description=level.description(self.lang),
                    input_id=f"id_{bound.html_name}_{level.value}",
                    checked=chosen == str(level.value),
                )
                for level in dimension.levels.all()
            ]
            rationale_name = self.rationale_name(dimension)
            questions.append(
                Question(
                    dimension=dimension,
                    name=bound.html_name,
                    title=dimension.name(self.lang),
                    text=dimension.question(self.lang),
                    options=options,
                    rationale=self[rationale_name] if rationale_name in self.fields else None,
                    errors=[str(error) for error in bound.errors],
                    position=position,
                )
            )
        return questions


def _storable(value: str) -> None:
    reason = unstorable(value)
    if reason is not None:
        raise forms.ValidationError(
            _("This answer cannot be stored: %(reason)s."),
            code="unstorable",
            params={"reason": reason},
        )


def _text_field(dimension: Dimension, lang: str) -> forms.CharField:
    """A free-text question: a text box, required or not, up to the question's length."""
    return forms.CharField(
        label=dimension.question(lang),
        required=dimension.required,
        max_length=dimension.max_chars,
        strip=True,
        validators=[_storable],
        widget=forms.Textarea(attrs={"rows": 4, "maxlength": dimension.max_chars}),
        error_messages={"required": _("Write an answer.")},
    )


class ImportTranscriptsForm(forms.Form):
    campaign = forms.ModelChoiceField(
        queryset=Campaign.objects.all(),
        required=False,
        label=_("Campaign"),
        empty_label=_("A new campaign…"),
    )
    new_campaign = forms.CharField(
        required=False,
        max_length=200,
        label=_("New campaign's name"),
        help_text=_("Created with the default CONCEPT rubric."),
    )
    annotations_per_item = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=50,
        label=_("Annotations per item (R) of the new campaign"),
        help_text=_("How many people answer each item; 3 if left empty."),
    )
    format = forms.ChoiceField(
        label=_("Format"),
        required=False,
        choices=[
            ("", _("Detect from the file")),
            ("jsonl", _("JSONL: one transcript per line")),
            ("csv", _("CSV: one row per turn")),
            ("concept4crs", _("Concept4CRS: a .zip of <system>/<dataset>/*.json")),
        ],
        help_text=_("Told from the file's extension and checked against its content."),
    )
    file = forms.FileField(label=_("File"), validators=[within_upload_limit])
    personas = forms.FileField(
        required=False,
        label=_("Personas (Concept4CRS only)"),
        help_text=_("CONCEPT's personas.csv, for each transcript's emotion and age group."),
        validators=[within_upload_limit],
    )
    dedupe_cells = forms.BooleanField(
        required=False,
        label=_("Skip duplicated persona × attribute cells (Concept4CRS only)"),
        help_text=_(
            "Keeps the lowest dialogue id of each profile and attribute pair per system and "
            "dataset, and skips the other files of it."
        ),
    )
    on_annotated = forms.ChoiceField(
        label=_("Rows of transcripts that already have annotations"),
        choices=[
            ("refuse", _("Refuse the import and name those rows")),
            ("version", _("Keep versions: the new content becomes a new version to annotate")),
        ],
        initial="refuse",
        required=False,
        widget=forms.RadioSelect,
        help_text=_(
            "Annotations always stay with the text they scored; reports and exports name the "
            "version, e.g. “t1 (v2)”. Rows of transcripts without annotations are updated."
        ),
    )

    def clean_on_annotated(self) -> str:
        return str(self.cleaned_data.get("on_annotated") or "refuse")

    def clean_new_campaign(self) -> str:
        name: str = self.cleaned_data["new_campaign"].strip()
        if name and Campaign.objects.filter(name=name).exists():
            raise forms.ValidationError(
                _("A campaign with this name exists; choose it above."), code="exists"
            )
        return name

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        chosen, name = cleaned.get("campaign"), cleaned.get("new_campaign")
        if not self.has_error("new_campaign") and bool(chosen) == bool(name):
            raise forms.ValidationError(
                _("Choose a campaign or name a new one (not both)."), code="campaign"
            )
        if cleaned.get("annotations_per_item") and chosen:
            self.add_error(
                "annotations_per_item",
                forms.ValidationError(
                    _("R is set here for a new campaign only."), code="annotations_per_item"
                ),
            )
        upload = cleaned.get("file")
        fmt = cleaned["format"] = self._detected(upload, cleaned.get("format") or "")
        if cleaned.get("personas") and fmt != "concept4crs":
            self.add_error(
                "personas",
                forms.ValidationError(
                    _("Personas apply to Concept4CRS imports only."), code="personas"
                ),
            )
        if cleaned.get("dedupe_cells") and fmt != "concept4crs":
            self.add_error(
                "dedupe_cells",
                forms.ValidationError(
                    _("Duplicated cells apply to Concept4CRS imports only."), code="dedupe_cells"
                ),
            )
        return cleaned

    def _detected(self, upload: Any, declared: str) -> str:
        """The upload's format, from its extension and its first bytes; a field error (and the
        declared format) when they disagree with each other or with the declared one."""
        if upload is None:
            return declared
        head = upload.read(HEAD_BYTES)
        upload.seek(0)
        try:
            found = detect_format(upload.name, head)
        except FormatError as problem:
            self.add_error("file", format_error_message(problem))
            return declared
        if declared and declared != found:
            self.add_error(
                "file",
                forms.ValidationError(
                    _("%(file)s is a %(found)s file, not %(declared)s."),
                    code="format",
                    params={
                        "file": upload.name,
                        "found": FORMAT_LABELS[found],
                        "declared": FORMAT_LABELS[declared],
                    },
                ),
            )
        return found

    @property
    def campaign_name(self) -> str:
        chosen: Campaign | None = self.cleaned_data.get("campaign")
        return chosen.name if chosen is not None else str(self.cleaned_data["new_campaign"])


FORMAT_LABELS = {
    "jsonl": _("JSONL"),
    "csv": _("CSV"),
    "concept4crs": _("Concept4CRS zip"),
    "": _("none of JSONL, CSV or a zip archive"),
}


def format_error_message(problem: FormatError) -> forms.ValidationError:
    """A file whose format cannot be told, in the reader's language, naming the file."""
    if problem.named is None:
        return forms.ValidationError(
            _("%(file)s: unknown file type; upload a .jsonl, .csv or Concept4CRS .zip file."),
            code="unknown_format",
            params={"file": problem.name},
        )
    return forms.ValidationError(
        _("%(file)s: the name says %(named)s, but the content looks like %(looks)s."),
        code="format_mismatch",
        params={
            "file": problem.name,
            "named": FORMAT_LABELS[problem.named],
            "looks": FORMAT_LABELS[problem.looks or ""],
        },
    )


class ImportScoresForm(forms.Form):
    campaign = forms.ModelChoiceField(queryset=Campaign.objects.all(), label=_("Campaign"))
    evaluator = forms.CharField(
        max_length=100,
        label=_("Evaluator"),
        help_text=_("The LLM evaluator's name, e.g. gpt-4o-2024-08-06 with CONCEPT's prompts."),
    )
    file = forms.FileField(
        label=_("File"),
        help_text=_("JSONL, or CSV with transcript_id, dimension, score, rationale."),
        validators=[within_upload_limit],
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if PurePath(upload.name).suffix.lower() not in {".jsonl", ".ndjson", ".csv"}:
            raise forms.ValidationError(_("Upload a .jsonl or .csv file."), code="suffix")
        return upload
