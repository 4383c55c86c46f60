"""The forms that make an invitation link, sign up through one, and add people from a CSV."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm, UsernameField
from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from evalsite import usernames
from evalsite.invitations import team_choices, team_of
from evalsite.models import Invitation
from evalsite.upload_limit import read_whole

ROLE_CHOICES = Invitation.ROLE_CHOICES


class InvitationForm(forms.ModelForm[Invitation]):
    role = forms.ChoiceField(label=_("Role"), choices=ROLE_CHOICES)
    team = forms.ChoiceField(label=_("Campaign (optional)"), required=False)
    days = forms.IntegerField(
        label=_("Valid for (days)"),
        min_value=1,
        max_value=365,
        initial=7,
        help_text=_("After this the link no longer works."),
    )

    class Meta:
        model = Invitation
        fields = ["role", "team", "max_uses"]
        labels = {"max_uses": _("How many people may sign up with it")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        team = self.fields["team"]
        assert isinstance(team, forms.ChoiceField)
        team.choices = [("", _("None")), *team_choices()]
        self.fields["max_uses"].widget.attrs["min"] = 1

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        named = team_of(data.get("team") or "")
        if named is not None and data.get("role") and named[0].role != data["role"]:
            self.add_error(
                "team",
                forms.ValidationError(
                    _("Only %(role)s can join this campaign; choose that role or no campaign."),
                    code="team_role",
                    params={"role": dict(ROLE_CHOICES)[named[0].role]},
                ),
            )
        return data

    def save(self, commit: bool = True) -> Invitation:
        invitation = super().save(commit=False)
        invitation.expires_at = timezone.now() + dt.timedelta(days=self.cleaned_data["days"])
        invitation.team_name = dict(team_choices()).get(invitation.team, "")
        if commit:
            invitation.save()
        return invitation


class SignupForm(UserCreationForm[User]):
    email = forms.EmailField(label=_("Email (optional)"), required=False)

    class Meta:
        model = User
        fields = ("username", "email")
        field_classes = {"username": UsernameField}

    def clean_username(self) -> str:
        username = str(super().clean_username())
        usernames.validate_new_username(username)
        return username


class BulkPeopleForm(forms.Form):
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_(
            "Columns username,email,role,campaign; role is judge, annotator or coordinator."
        ),
    )
    passwords = forms.ChoiceField(
        label=_("Passwords"),
        choices=[
            ("show", _("Show me each person's link to choose a password, once, to hand out")),
            ("mail", _("Mail each person a link to choose their own")),
        ],
        widget=forms.RadioSelect,
        initial="show",
    )

    def clean_file(self) -> bytes:
        """The file's bytes, within the upload limit; they are read whole, and checked line
        by line by ``bulk_people.read_people``."""
        return read_whole(self.cleaned_data["file"])
