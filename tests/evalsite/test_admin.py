from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.models import Campaign
from annotation.rubrics import default_rubric
from evalsite import roles
from liveeval.models import DialogueSystem
from tests.conftest import logged_in, make_user

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


def test_coordinator_pages_link_to_the_admin_only_for_superusers() -> None:
    """The nav, the annotation campaigns list and a campaign's dashboard: a coordinator, even a
    staff one like the demo's, gets no link into the admin, which would only refuse them."""
    campaign = Campaign.objects.create(name="Study", rubric=default_rubric())
    pages = [
        reverse("home"),
        reverse("annotation:campaigns"),
        reverse("annotation:dashboard", args=[campaign.pk]),
    ]
    admin_link = f'href="{reverse("admin:index")}'
    coordinators = [make_user("cora", roles.COORDINATORS), make_user("stan", staff=True)]
    for user in coordinators:
        client = logged_in(user)
        for page in pages:
            response = client.get(page)
            assert response.status_code == 200, page
            assert admin_link not in response.content.decode(), (user.username, page)
    root = logged_in(User.objects.create_superuser("root", "root@example.org", "pw-root-123"))
    for page in pages:
        assert admin_link in root.get(page).content.decode(), page


@pytest.mark.parametrize(
    ("secret_key", "command"),
    [
        (None, "DEBUG=1 .venv/bin/python manage.py createsuperuser"),
        ("a-secret", ".venv/bin/python manage.py createsuperuser"),
    ],
)
def test_the_demo_says_how_to_create_a_superuser_with_a_command_that_works(
    monkeypatch: pytest.MonkeyPatch, settings: Any, secret_key: str | None, command: str
) -> None:
    settings.DEBUG = True
    if secret_key is None:
        monkeypatch.delenv("SECRET_KEY", raising=False)
    else:
        monkeypatch.setenv("SECRET_KEY", secret_key)
    out = io.StringIO()
    call_command("seed_demo", "--users-only", stdout=out)
    printed = out.getvalue()
    assert f"create one with: {command}\n" in printed
    assert User.objects.filter(username="coordinator", is_superuser=False).exists()


@pytest.mark.parametrize(
    ("username", "language", "why"),
    [
        ("\u043etto", "en", "mixes Latin letters with Cyrillic or Greek ones"),  # Cyrillic о
        ("\u043e\u0442\u0442\u043e", "en", "looks like a username that is taken"),  # all Cyrillic
        ("p\u0430ul", "zh-hans", "混用了拉丁字母和外形相似的西里尔字母或希腊字母"),  # Cyrillic а
        ("\u043e\u0442\u0442\u043e", "zh-hans", "与已有的用户名看起来相同"),
    ],
)
def test_the_admin_refuses_a_new_username_that_passes_for_another(
    admin_client_: Client, username: str, language: str, why: str
) -> None:
    User.objects.create_user("otto")
    admin_client_.cookies["django_language"] = language
    response = admin_client_.post(
        reverse("admin:auth_user_add"),
        {"username": username, "usable_password": "false", "password1": "", "password2": ""},
    )
    assert response.status_code == 200
    assert why in response.content.decode()
    assert not User.objects.filter(username=username).exists()
    made = admin_client_.post(
        reverse("admin:auth_user_add"),
        {"username": "paul", "usable_password": "false", "password1": "", "password2": ""},
    )
    assert made.status_code == 302 and User.objects.filter(username="paul").exists()


def test_the_admin_refuses_renaming_someone_to_a_look_alike(admin_client_: Client) -> None:
    User.objects.create_user("otto")
    paul = User.objects.create_user("paul")
    url = reverse("admin:auth_user_change", args=[paul.pk])
    form = {
        "username": "\u043e\u0442\u0442\u043e",
        "is_active": "on",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
    }
    admin_client_.cookies["django_language"] = "en"
    response = admin_client_.post(url, form)
    assert response.status_code == 200
    assert "looks like a username that is taken" in response.content.decode()
    paul.refresh_from_db()
    assert paul.username == "paul"
    # Keeping one's own name, or changing only other fields, is no look-alike of oneself.
    kept = admin_client_.post(url, {**form, "username": "paul", "email": "p@example.org"})
    assert kept.status_code == 302
    paul.refresh_from_db()
    assert paul.email == "p@example.org"
