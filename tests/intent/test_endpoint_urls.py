"""Intent endpoints pass the same URL check and operator host list as systems under test."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation
from pytest_django.fixtures import Settings

from evalsite import jobs
from evalsite.models import Job
from intent.endpoint.job import start_endpoint_run
from intent.forms import EndpointForm
from intent.models import Submission, Team

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://[::1/ok", "closing bracket"),
        ("http://example.org:99999/", "port"),
        ("ftp://example.org/", "http:// or https://"),
        ("http://user:pw@example.org/", "user name or password"),
    ],
)
def test_the_endpoint_form_refuses_what_systems_refuse(team: Team, url: str, said: str) -> None:
    with translation.override("en"):
        form = EndpointForm({"endpoint_url": url}, instance=team)
        assert not form.is_valid()
        assert said in str(form.errors["endpoint_url"])


def test_the_operator_host_list_applies_to_intent_endpoints(team: Team, settings: Settings) -> None:
    settings.ENDPOINT_HOSTS = [".systems.example.org"]
    with translation.override("en"):
        refused = EndpointForm({"endpoint_url": "http://127.0.0.1:8000/"}, instance=team)
        assert not refused.is_valid()
        assert "not among the hosts this site may call" in str(refused.errors["endpoint_url"])
    allowed = EndpointForm({"endpoint_url": "https://a.systems.example.org/x"}, instance=team)
    assert allowed.is_valid(), allowed.errors
    cleared = EndpointForm({"endpoint_url": ""}, instance=team)
    assert cleared.is_valid()


def test_the_endpoint_page_keeps_the_old_url_when_the_new_one_is_refused(
    team: Team, participant: User
) -> None:
    team.endpoint_url = "http://127.0.0.1:9000/"
    team.save()
    client = Client()
    client.force_login(participant)
    with translation.override("en"):
        response = client.post(
            reverse("intent:endpoint", args=[team.track.pk]),
            {"endpoint_url": "http://[::1/ok", "run": "1"},
            follow=True,
            HTTP_ACCEPT_LANGUAGE="en",
        )
    assert response.status_code == 200
    assert "closing bracket" in response.content.decode()
    team.refresh_from_db()
    assert team.endpoint_url == "http://127.0.0.1:9000/"
    assert not Submission.objects.exists()


def test_a_stored_url_off_the_host_list_is_not_called(
    team: Team, participant: User, settings: Settings
) -> None:
    team.endpoint_url = "http://127.0.0.1:9/"
    team.save()
    settings.ENDPOINT_HOSTS = ["systems.example.org"]
    submission, job = start_endpoint_run(team, participant)
    job = jobs.run(job)
    assert job.status == Job.Status.FAILED
    assert "not among the hosts" in " ".join(job.errors)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED and submission.predictions == {}
