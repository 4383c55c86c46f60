"""The coordinator's system pages: listing, adding, editing, testing, disabling, deleting."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation

from liveeval.forms import CampaignForm
from liveeval.models import ChatSession, DialogueSystem
from testing.servers import free_port
from tests.liveeval.conftest import make_campaign
from tests.liveeval.test_http_system import TeamServer


@pytest.fixture(autouse=True)
def llm_credentials(settings: Any) -> None:
    settings.LLM_KEYS = "local:@http://127.0.0.1:8001/v1"


@pytest.fixture
def team() -> Iterator[TeamServer]:
    server = TeamServer()
    yield server
    server.stop()


@pytest.fixture
def http_system(db: None) -> DialogueSystem:
    return DialogueSystem.objects.create(
        slug="team-a",
        name="Team A",
        alias="System A",
        kind="http",
        config={"endpoint": f"http://127.0.0.1:{free_port()}/chat"},
    )


def english(client: Client) -> Client:
    client.cookies["django_language"] = "en"
    return client


@pytest.mark.django_db
def test_test_toggle_and_delete_refuse_get(
    coordinator_client: Client, http_system: DialogueSystem
) -> None:
    for name in ("system_test", "system_toggle", "system_delete"):
        url = reverse(f"liveeval:{name}", args=[http_system.pk])
        assert coordinator_client.get(url).status_code == 405


# Adding and editing.


@pytest.mark.django_db
def test_a_coordinator_adds_an_http_system_under_the_next_free_alias(
    coordinator_client: Client,
) -> None:
    response = coordinator_client.post(
        reverse("liveeval:system_new") + "?kind=http",
        {"slug": "team-b", "endpoint": "http://team-b.example/chat", "timeout": "5"},
    )
    assert response.status_code == 302
    system = DialogueSystem.objects.get(slug="team-b")
    taken = set(DialogueSystem.objects.exclude(pk=system.pk).values_list("alias", flat=True))
    assert system.alias not in taken and system.alias.startswith("System ")
    assert (system.kind, system.name, system.enabled) == ("http", "team-b", True)
    assert system.config == {"endpoint": "http://team-b.example/chat", "timeout": 5.0}


@pytest.mark.django_db
def test_an_endpoint_that_is_not_a_url_is_an_error_on_its_field(
    coordinator_client: Client,
) -> None:
    response = english(coordinator_client).post(
        reverse("liveeval:system_new") + "?kind=http",
        {"slug": "team-b", "endpoint": "team-b.example/chat"},
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == ["endpoint"]
    assert "endpoint must be an http(s) URL" in errors["endpoint"][0]
    assert not DialogueSystem.objects.filter(slug="team-b").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("endpoint", "said"),
    [
        ("http://[::1/ok", "IPv6 address is missing a closing bracket"),
        ("http://team-b.example:99999/chat", "the port must be a number from 1 to 65535"),
    ],
    ids=["unclosed-ipv6-bracket", "port-99999"],
)
def test_a_malformed_endpoint_is_a_field_error_and_nothing_is_stored(
    coordinator_client: Client, http_system: DialogueSystem, endpoint: str, said: str
) -> None:
    added = english(coordinator_client).post(
        reverse("liveeval:system_new") + "?kind=http", {"slug": "team-b", "endpoint": endpoint}
    )
    assert added.status_code == 200
    assert list(added.context["form"].errors) == ["endpoint"]
    assert said in added.context["form"].errors["endpoint"][0]
    assert not DialogueSystem.objects.filter(slug="team-b").exists()
    before = dict(http_system.config)
    edited = english(coordinator_client).post(
        reverse("liveeval:system_edit", args=[http_system.pk]),
        {"slug": "team-a", "name": "Team A", "alias": http_system.alias, "endpoint": endpoint},
    )
    assert edited.status_code == 200
    assert said in edited.context["form"].errors["endpoint"][0]
    http_system.refresh_from_db()
    assert http_system.config == before


@pytest.mark.django_db
def test_a_negative_timeout_is_refused_like_add_system_refuses_it(
    coordinator_client: Client,
) -> None:
    response = coordinator_client.post(
        reverse("liveeval:system_new") + "?kind=http",
        {"slug": "team-b", "endpoint": "http://team-b.example/chat", "timeout": "-1"},
    )
    assert (
        "timeout must be a number of seconds above 0"
        in response.context["form"].errors["timeout"][0]
    )
    with pytest.raises(Exception, match="timeout must be a number of seconds above 0"):
        call_command(
            "add_system", "team-b", "--kind", "http", "--endpoint", "http://x/c", "--timeout", "-1"
        )


@pytest.mark.django_db
def test_an_llm_agent_with_a_temperature_out_of_range_is_an_error_on_that_field(
    coordinator_client: Client,
) -> None:
    response = coordinator_client.post(
        reverse("liveeval:system_new") + "?kind=openai",
        {"slug": "agent", "credential": "local", "model": "m", "temperature": "3"},
    )
    assert list(response.context["form"].errors) == ["temperature"]
    assert not DialogueSystem.objects.filter(slug="agent").exists()


@pytest.mark.django_db
def test_an_llm_agent_picks_a_named_credential_and_never_a_key_or_variable(
    coordinator_client: Client,
) -> None:
    url = reverse("liveeval:system_new") + "?kind=openai"
    page = coordinator_client.get(url).content.decode()
    assert 'name="credential"' in page and "local (http://127.0.0.1:8001/v1)" in page
    for field in ("api_key", "api_key_env", "base_url"):
        assert f'name="{field}"' not in page
    response = coordinator_client.post(
        url, {"slug": "agent", "credential": "local", "model": "qwen", "seed": "7"}
    )
    assert response.status_code == 302
    agent = DialogueSystem.objects.get(slug="agent")
    assert (agent.kind, agent.config) == (
        "openai",
        {"credential": "local", "model": "qwen", "seed": 7},
    )
    smuggled = coordinator_client.post(
        url,
        {"slug": "agent-2", "credential": "elsewhere", "model": "m", "api_key_env": "SECRET_KEY"},
    )
    assert list(smuggled.context["form"].errors) == ["credential"]
    assert not DialogueSystem.objects.filter(slug="agent-2").exists()


@pytest.mark.django_db
def test_editing_keeps_the_slug_and_changes_the_settings(
    coordinator_client: Client, http_system: DialogueSystem
) -> None:
    url = reverse("liveeval:system_edit", args=[http_system.pk])
    page = coordinator_client.get(url)
    assert http_system.config["endpoint"] in page.content.decode()
    response = coordinator_client.post(
        url,
        {
            "slug": "renamed",
            "name": "Team A v2",
            "alias": "System Q",
            "endpoint": "https://a.example/chat",
        },
    )
    assert response.status_code == 302
    http_system.refresh_from_db()
    assert (http_system.slug, http_system.name, http_system.alias) == (
        "team-a",
        "Team A v2",
        "System Q",
    )
    assert http_system.config == {"endpoint": "https://a.example/chat"}


@pytest.mark.django_db
def test_a_built_in_system_is_added_with_no_settings(coordinator_client: Client) -> None:
    response = coordinator_client.post(
        reverse("liveeval:system_new") + "?kind=builtin",
        {"slug": "reference-2", "kind": "reference", "alias": "System R2"},
    )
    assert response.status_code == 302
    system = DialogueSystem.objects.get(slug="reference-2")
    assert (system.kind, system.config) == ("reference", {})


# Testing the connection.


def connection_result(client: Client, system: DialogueSystem) -> str:
    response = client.post(
        reverse("liveeval:system_test", args=[system.pk]), headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
def test_test_connection_shows_the_reply_and_its_latency(
    coordinator_client: Client, http_system: DialogueSystem, team: TeamServer
) -> None:
    team.replies({"reply": "Hi, where to?"})
    http_system.config = {"endpoint": team.url}
    http_system.save()
    shown = connection_result(english(coordinator_client), http_system)
    assert "Hi, where to?" in shown and " ms" in shown
    assert team.received[0]["message"] == "Hello"
    session = ChatSession.objects.get(system=http_system)
    assert session.kind == ChatSession.Kind.SANDBOX and not session.is_open


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("status", "body", "config", "cause"),
    [
        (500, {"error": "boom"}, {}, "HTTP 500 from"),
        (200, b"<html>hi</html>", {}, "not JSON"),
        (200, {"reply": "x" * 3000}, {"max_bytes": 1000}, "reply too large"),
    ],
)
def test_test_connection_names_the_exact_cause_of_a_failure(
    coordinator_client: Client,
    http_system: DialogueSystem,
    team: TeamServer,
    status: int,
    body: object,
    config: dict[str, int],
    cause: str,
) -> None:
    team.replies(body, status)
    http_system.config = {"endpoint": team.url, **config}
    http_system.save()
    assert cause in connection_result(coordinator_client, http_system)


@pytest.mark.django_db
def test_test_connection_says_refused_and_timed_out(
    coordinator_client: Client, http_system: DialogueSystem, team: TeamServer
) -> None:
    assert "connection refused" in connection_result(coordinator_client, http_system)
    team.replies({"reply": "late"})
    team.delay = 2.0
    http_system.config = {"endpoint": team.url, "timeout": 0.3}
    http_system.save()
    assert "timed out after 0.3 s" in connection_result(coordinator_client, http_system)


@pytest.mark.django_db
def test_without_htmx_test_connection_reports_on_the_list(
    coordinator_client: Client, http_system: DialogueSystem
) -> None:
    with translation.override("en"):
        response = english(coordinator_client).post(
            reverse("liveeval:system_test", args=[http_system.pk]), follow=True
        )
    assert "System A failed after" in response.content.decode()
    assert "connection refused" in response.content.decode()


# Disabling and deleting.


@pytest.mark.django_db
def test_a_disabled_system_is_not_offered_to_new_campaigns(
    coordinator_client: Client, http_system: DialogueSystem
) -> None:
    coordinator_client.post(reverse("liveeval:system_toggle", args=[http_system.pk]))
    http_system.refresh_from_db()
    assert not http_system.enabled
    assert http_system not in CampaignForm().fields["systems"].queryset  # type: ignore[attr-defined]
    coordinator_client.post(reverse("liveeval:system_toggle", args=[http_system.pk]))
    http_system.refresh_from_db()
    assert http_system.enabled


@pytest.mark.django_db
def test_a_system_used_by_a_campaign_cannot_be_deleted(
    coordinator_client: Client, http_system: DialogueSystem
) -> None:
    campaign = make_campaign("Spring round")
    campaign.systems.add(http_system)
    with translation.override("en"):
        response = english(coordinator_client).post(
            reverse("liveeval:system_delete", args=[http_system.pk]), follow=True
        )
    assert "cannot be deleted: it is used by the campaign(s) Spring round" in (
        response.content.decode()
    )
    assert DialogueSystem.objects.filter(pk=http_system.pk).exists()


@pytest.mark.django_db
def test_an_unused_system_is_deleted_with_its_sandbox_conversations(
    coordinator_client: Client, http_system: DialogueSystem
) -> None:
    connection_result(coordinator_client, http_system)
    assert ChatSession.objects.filter(system=http_system).count() == 1
    response = coordinator_client.post(reverse("liveeval:system_delete", args=[http_system.pk]))
    assert response.status_code == 302
    assert not DialogueSystem.objects.filter(slug="team-a").exists()
    assert not ChatSession.objects.filter(system_id=http_system.pk).exists()


# The command line.


@pytest.mark.django_db
def test_add_system_stores_a_system_whose_endpoint_is_down_and_check_says_why() -> None:
    out = io.StringIO()
    url = f"http://127.0.0.1:{free_port()}/chat"
    call_command("add_system", "team-c", "--kind", "http", "--endpoint", url, "--check", stdout=out)
    assert DialogueSystem.objects.filter(slug="team-c").exists()
    assert "Test exchange failed after" in out.getvalue()
    assert f"connection refused by {url}" in out.getvalue()


@pytest.mark.django_db
def test_add_system_check_prints_the_reply(team: TeamServer) -> None:
    team.replies({"reply": "Ready."})
    out = io.StringIO()
    call_command(
        "add_system", "team-d", "--kind", "http", "--endpoint", team.url, "--check", stdout=out
    )
    assert "Test exchange: replied in" in out.getvalue() and "Ready." in out.getvalue()
