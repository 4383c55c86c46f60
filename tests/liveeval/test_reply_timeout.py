"""A system may take at most 60 seconds to answer: the model, the form and the commands say so."""

from __future__ import annotations

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError

from liveeval.forms import CampaignForm
from liveeval.models import Campaign
from tests.liveeval.conftest import make_campaign

pytestmark = pytest.mark.django_db


def test_the_model_refuses_a_timeout_over_sixty_seconds() -> None:
    campaign = make_campaign()
    campaign.reply_timeout = 61
    with pytest.raises(ValidationError) as error:
        campaign.full_clean()
    assert "reply_timeout" in error.value.message_dict
    assert "60" in error.value.message_dict["reply_timeout"][0]


def test_the_database_refuses_it_whatever_the_form_says() -> None:
    with pytest.raises(IntegrityError):
        Campaign.objects.filter(pk=make_campaign().pk).update(reply_timeout=600)


def test_the_campaign_form_names_the_bound() -> None:
    form = CampaignForm(data={"name": "x", "reply_timeout": "90", "max_turns": 20})
    assert not form.is_valid()
    assert "60" in form.errors["reply_timeout"][0]
    form = CampaignForm(data={"name": "x", "reply_timeout": "60", "max_turns": 20})
    form.is_valid()
    assert "reply_timeout" not in form.errors


def test_the_commands_refuse_it_with_a_clear_error() -> None:
    with pytest.raises(CommandError, match=r"--reply-timeout must be .* at most 60"):
        call_command(
            "create_campaign",
            "c",
            "--systems",
            "x",
            "--tasks",
            "all",
            "--judges",
            "",
            "--reply-timeout",
            "120",
        )
    with pytest.raises(CommandError, match=r"--timeout must be .* at most 60"):
        call_command("talk", "reference", "--timeout", "61", stdin=io.StringIO(""))
