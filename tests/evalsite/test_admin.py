from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from liveeval.models import DialogueSystem

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_(db: None) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    return client


def test_every_admin_list_and_add_page_loads(admin_client_: Client) -> None:
    for model in admin.site._registry:
        meta = model._meta
        changelist = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        assert admin_client_.get(changelist).status_code == 200, changelist
        add = reverse(f"admin:{meta.app_label}_{meta.model_name}_add")
        assert admin_client_.get(add).status_code in (200, 403), add


def test_a_system_with_a_bad_configuration_is_refused(admin_client_: Client) -> None:
    response = admin_client_.post(
        reverse("admin:liveeval_dialoguesystem_add"),
        {
            "slug": "team-x",
            "name": "Team X",
            "alias": "System X",
            "kind": "http",
            "config": '{"timeout": "soon"}',
            "description": "",
            "enabled": "on",
        },
    )
    assert response.status_code == 200
    assert "endpoint" in response.content.decode()
    assert not DialogueSystem.objects.filter(slug="team-x").exists()


def test_the_baseline_is_labelled_as_such(admin_client_: Client) -> None:
    html = admin_client_.get(reverse("admin:liveeval_dialoguesystem_changelist")).content
    assert "BASELINE: a weak contrast, not a competitor" in html.decode()


@pytest.mark.parametrize(
    ("kind", "config", "said"),
    [
        ("http", '{"endpoint": "http://[::1/ok"}', "missing a closing bracket"),
        ("http", '{"endpoint": "http://127.0.0.1:99999/"}', "from 1 to 65535"),
        (
            "openai",
            '{"base_url": "https://attacker.example/v1", "model": "m", '
            '"api_key_env": "SECRET_KEY"}',
            "named credentials",
        ),
        ("openai", '{"credential": "nobody", "model": "m"}', "no LLM credential named"),
    ],
)
def test_the_systems_page_validates_endpoints_and_never_names_a_variable(
    admin_client_: Client, kind: str, config: str, said: str
) -> None:
    response = admin_client_.post(
        reverse("admin:liveeval_dialoguesystem_add"),
        {
            "slug": "team-x",
            "name": "Team X",
            "alias": "System X",
            "kind": kind,
            "config": config,
            "description": "",
            "enabled": "on",
        },
    )
    assert response.status_code == 200
    assert said in response.content.decode()
    assert not DialogueSystem.objects.filter(slug="team-x").exists()
