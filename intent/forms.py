"""Forms of the intent track: the track, a dataset split, a team, a submission, an endpoint."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from evalsite import roles
from evalsite.endpoint_addresses import check_written_host
from evalsite.endpoint_url import MAX_LENGTH as MAX_URL_LENGTH
from evalsite.endpoint_url import EndpointURLError, endpoint_url
from evalsite.upload_limit import read_whole
from intent.labels import SMP_LABELS
from intent.models import Team, Track, Utterance


@dataclass(frozen=True)
class UploadedText:
    name: str
    text: str


def _text_of(upload: Any) -> UploadedText:
    """The upload's text, within the configured limit (EVALSITE_FORM_UPLOAD_MAX_MB)."""
    raw = read_whole(upload)
    try:
        return UploadedText(str(upload.name or ""), raw.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise forms.ValidationError(
            _("The file is not UTF-8 text (byte %(byte)d)."),
            code="encoding",
            params={"byte": error.start},
        ) from error


class TrackForm(forms.ModelForm[Track]):
    label_list = forms.CharField(
        label=_("Labels"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Separated by commas or new lines; empty for the 31 SMP2018 classes."),
    )

    class Meta:
        model = Track
        fields = ["name", "description", "daily_quota", "public_share"]

    def clean_label_list(self) -> list[str]:
        text = self.cleaned_data["label_list"].replace("\n", ",")
        labels = [label.strip() for label in text.split(",") if label.strip()]
        if len(set(labels)) != len(labels):
            raise forms.ValidationError(_("A label is listed twice."), code="repeated")
        if len(labels) == 1:
            raise forms.ValidationError(_("A track needs at least two labels."), code="one")
        return labels or list(SMP_LABELS)

    def save(self, commit: bool = True) -> Track:
        self.instance.labels = self.cleaned_data["label_list"]
        return super().save(commit)


class SplitUploadForm(forms.Form):
    split = forms.ChoiceField(label=_("Split"), choices=Utterance.Split.choices)
    file = forms.FileField(
        label=_("Labelled utterances"),
        help_text=_('Released JSON {"id": {"query": …, "label": …}} or CSV id,query,label.'),
    )

    def clean_file(self) -> UploadedText:
        return _text_of(self.cleaned_data["file"])


class TeamForm(forms.Form):
    name = forms.CharField(label=_("Team name"), max_length=100)
    members = forms.CharField(
        label=_("Members"), help_text=_("User names of participants, separated by commas.")
    )

    def __init__(self, *args: Any, track: Track, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.track = track

    def clean_name(self) -> str:
        name = str(self.cleaned_data["name"]).strip()
        if Team.objects.filter(track=self.track, name=name).exists():
            raise forms.ValidationError(_("This track already has a team of that name."))
        return name

    def clean_members(self) -> list[Any]:
        names = [n.strip() for n in self.cleaned_data["members"].split(",") if n.strip()]
        users = list(
            get_user_model().objects.filter(username__in=names, groups__name=roles.PARTICIPANTS)
        )
        unknown = sorted(set(names) - {user.get_username() for user in users})
        if unknown:
            raise forms.ValidationError(
                _("Not participants: %(names)s"), params={"names": ", ".join(unknown)}
            )
        taken = (
            get_user_model()
            .objects.filter(pk__in=[user.pk for user in users], intent_teams__track=self.track)
            .values_list("username", flat=True)
        )
        if taken:
            raise forms.ValidationError(
                _("Already in a team of this track: %(names)s"),
                params={"names": ", ".join(sorted(set(taken)))},
            )
        return users


class SubmissionForm(forms.Form):
    file = forms.FileField(
        label=_("Predictions"),
        help_text=_('CSV id,label or JSON {"resultsList": [{"id": …, "result": …}]}.'),
    )

    def clean_file(self) -> UploadedText:
        return _text_of(self.cleaned_data["file"])


class EndpointForm(forms.ModelForm[Team]):
    endpoint_url = forms.CharField(
        label=_("Endpoint URL"),
        required=False,
        max_length=MAX_URL_LENGTH,
        help_text=_(
            'EvalSite POSTs {"sentencesList": [{"id", "content"}]} and expects '
            '{"resultsList": [{"id", "result"}]} within 4 seconds per batch.'
        ),
    )

    class Meta:
        model = Team
        fields = ["endpoint_url"]

    def clean_endpoint_url(self) -> str:
        """The same check as systems' endpoints (form, port, the operator's host list), and no
        address written in it that is not public (`evalsite.endpoint_addresses`)."""
        value: str = self.cleaned_data["endpoint_url"]
        if not value:
            return ""
        try:
            url = endpoint_url(value)
            check_written_host(url)
            return url
        except EndpointURLError as error:
            raise forms.ValidationError(
                _("This endpoint URL cannot be used: %(reason)s."),
                code="endpoint_url",
                params={"reason": str(error)},
            ) from None
