"""Invitation links: making them, signing up through them, and refusing spent ones."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Campaign as AnnotationCampaign
from annotation.rubrics import default_rubric
from evalsite import roles
from evalsite.models import Invitation
from liveeval.models import Campaign
from tests.annotation.conftest import person

NEW_PASSWORD = "a-long-new-pass-42"


def live_campaign(name: str = "Spring round") -> Campaign:
    return Campaign.objects.create(name=name, today=dt.date(2026, 12, 1), lang="en")


def invite(client: Client, **fields: object) -> Invitation:
    data = {"role": roles.JUDGES, "team": "", "max_uses": 3, "days": 7, **fields}
    response = client.post(reverse("invitations"), data)
    assert response.status_code == 302, response.context["form"].errors
    return Invitation.objects.latest("pk")


def sign_up(token: str, username: str) -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    response = client.post(
        reverse("signup", args=[token]),
        {"username": username, "email": "", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 302 and response["Location"] == reverse("home")
    return client


@pytest.mark.django_db
def test_three_judges_sign_up_with_one_link_and_land_in_the_campaign(
    coordinator_client: Client,
) -> None:
    campaign = live_campaign()
    invitation = invite(coordinator_client, team=f"live:{campaign.pk}", max_uses=3)
    page = coordinator_client.get(reverse("invitations")).content.decode()
    link = re.search(r'value="(https?://[^"]+/join/[^"]+/)"', page)
    assert link is not None and link.group(1).endswith(f"/join/{invitation.token}/")

    for name in ("ju1", "ju2", "ju3"):
        client = sign_up(invitation.token, name)
        assert client.get(reverse("home")).context["user"].username == name
    judges = User.objects.filter(username__in=["ju1", "ju2", "ju3"])
    assert all(roles.has_role(user, roles.JUDGES) for user in judges)
    assert not any(roles.has_role(user, roles.COORDINATORS) for user in judges)
    assert set(campaign.judges.values_list("username", flat=True)) == {"ju1", "ju2", "ju3"}
    invitation.refresh_from_db()
    assert invitation.uses == 3

    refused = Client().post(
        reverse("signup", args=[invitation.token]),
        {"username": "ju4", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert refused.status_code == 410
    assert "already been used as many times as it allows" in refused.content.decode()
    assert not User.objects.filter(username="ju4").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"expires_at": timezone.now() - dt.timedelta(minutes=1)}, "This invitation has expired."),
        ({"revoked_at": timezone.now()}, "withdrawn by the coordinator"),
    ],
)
def test_expired_and_withdrawn_links_are_refused_with_a_clear_page(
    change: dict[str, object], reason: str
) -> None:
    invitation = Invitation.objects.create(
        role=roles.JUDGES, expires_at=timezone.now() + dt.timedelta(days=1)
    )
    Invitation.objects.filter(pk=invitation.pk).update(**change)
    client = Client()
    client.cookies["django_language"] = "en"
    page = client.get(reverse("signup", args=[invitation.token]))
    assert page.status_code == 410 and reason in page.content.decode()
    client.post(
        reverse("signup", args=[invitation.token]),
        {"username": "late", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert not User.objects.filter(username="late").exists()


@pytest.mark.django_db
def test_withdrawing_a_link_stops_it(coordinator_client: Client) -> None:
    invitation = invite(coordinator_client)
    coordinator_client.post(reverse("invitation_revoke", args=[invitation.pk]))
    assert Client().get(reverse("signup", args=[invitation.token])).status_code == 410


@pytest.mark.django_db
def test_an_unknown_token_is_not_found() -> None:
    assert Client().get(reverse("signup", args=["no-such-token"])).status_code == 404


@pytest.mark.django_db
def test_a_campaign_of_another_role_is_an_error_on_the_campaign_field(
    coordinator_client: Client,
) -> None:
    campaign = AnnotationCampaign.objects.create(name="Rubric study", rubric=default_rubric())
    response = coordinator_client.post(
        reverse("invitations"),
        {"role": roles.JUDGES, "team": f"annotation:{campaign.pk}", "max_uses": 1, "days": 7},
    )
    assert response.status_code == 200
    assert list(response.context["form"].errors) == ["team"]
    assert not Invitation.objects.exists()


@pytest.mark.django_db
def test_an_annotator_joins_a_campaign_team_but_an_open_campaign_stays_open(
    coordinator_client: Client,
) -> None:
    rubric = default_rubric()
    team = AnnotationCampaign.objects.create(name="Team study", rubric=rubric)
    team.annotators.add(person("anna", roles.ANNOTATORS))
    everyone = AnnotationCampaign.objects.create(name="Open study", rubric=rubric)
    for campaign, name in ((team, "an1"), (everyone, "an2")):
        invitation = invite(
            coordinator_client, role=roles.ANNOTATORS, team=f"annotation:{campaign.pk}"
        )
        sign_up(invitation.token, name)
    assert set(team.annotators.values_list("username", flat=True)) == {"anna", "an1"}
    assert not everyone.annotators.exists()
    assert roles.has_role(User.objects.get(username="an2"), roles.ANNOTATORS)


@pytest.mark.django_db
def test_a_bad_signup_shows_the_errors_and_spends_no_use(coordinator_client: Client) -> None:
    invitation = invite(coordinator_client, max_uses=1)
    response = Client().post(
        reverse("signup", args=[invitation.token]),
        {"username": "x", "password1": "short", "password2": "other"},
    )
    assert response.status_code == 200
    assert "password2" in response.context["form"].errors
    invitation.refresh_from_db()
    assert invitation.uses == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "why"),
    [
        ("\u043etto", "mixes Latin letters with Cyrillic or Greek ones"),  # Cyrillic о
        ("\u043e\u0442\u0442\u043e", "looks like a username that is taken"),  # all Cyrillic
        ("OTTO", "A user with that username already exists."),
        ("pаul", "mixes Latin letters with Cyrillic or Greek ones"),  # Cyrillic а
    ],
)
def test_a_username_that_passes_for_another_is_refused(
    coordinator_client: Client, outsider: User, username: str, why: str
) -> None:
    invitation = invite(coordinator_client)
    response = Client().post(
        reverse("signup", args=[invitation.token]),
        {"username": username, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    assert why in response.content.decode()
    assert User.objects.count() == 2  # the coordinator and otto


@pytest.mark.django_db
def test_a_chinese_username_is_welcome(coordinator_client: Client) -> None:
    invitation = invite(coordinator_client)
    sign_up(invitation.token, "张伟")
    assert User.objects.filter(username="张伟").exists()
