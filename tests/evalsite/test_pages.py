from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evalsite import roles
from tests.conftest import logged_in, make_user

pytestmark = pytest.mark.django_db

# Every page with a role: (url name, kwargs, roles allowed). Anonymous users are
# sent to the login page; everybody else without one of the roles gets 403.
GUARDED_PAGES: list[tuple[str, dict[str, int], tuple[str, ...]]] = [
    ("job_list", {}, (roles.COORDINATORS,)),
]


def _cast() -> dict[str, User]:
    return {
        roles.JUDGES: make_user("j", roles.JUDGES),
        roles.ANNOTATORS: make_user("a", roles.ANNOTATORS),
        roles.COORDINATORS: make_user("c", roles.COORDINATORS),
        "outsider": make_user("o"),
    }


@pytest.mark.parametrize(("name", "kwargs", "allowed"), GUARDED_PAGES)
def test_every_page_enforces_its_role(
    name: str, kwargs: dict[str, int], allowed: tuple[str, ...]
) -> None:
    url = reverse(name, kwargs=kwargs)
    response = Client().get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    for role, user in _cast().items():
        status = logged_in(user).get(url).status_code
        assert status == (200 if role in allowed else 403), (role, url, status)


class TestHome:
    def test_it_sends_anonymous_users_to_login(self) -> None:
        response = Client().get(reverse("home"))
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('login')}?next=/"

    def test_it_shows_a_judge_their_conversations(self, judge_client: Client) -> None:
        html = judge_client.get(reverse("home")).content.decode()
        assert 'data-role="judges"' in html
        assert 'data-role="annotators"' not in html
        assert 'data-role="coordinators"' not in html

    def test_it_shows_an_annotator_their_items(self, annotator_client: Client) -> None:
        html = annotator_client.get(reverse("home")).content.decode()
        assert 'data-role="annotators"' in html
        assert 'data-role="judges"' not in html

    def test_it_shows_a_coordinator_their_campaigns(self, coordinator_client: Client) -> None:
        html = coordinator_client.get(reverse("home")).content.decode()
        assert 'data-role="coordinators"' in html
        assert reverse("job_list") in html

    def test_each_app_adds_its_part_to_the_coordinator_section(
        self, coordinator_client: Client
    ) -> None:
        html = coordinator_client.get(reverse("home")).content.decode()
        section = html.split('data-role="coordinators"', 1)[1].split("</section>", 1)[0]
        headings = ["Coordinator", "Live evaluation campaigns", "Annotation campaigns"]
        at = [section.index(f">{heading}</h") for heading in headings]
        assert at == sorted(at), "evalsite's heading first, then the apps in installed order"
        assert reverse("liveeval:campaign_new") in section
        assert reverse("annotation:import_transcripts") in section

    def test_it_refuses_a_part_for_an_unknown_role(self) -> None:
        from evalsite.home import HomePart, register

        with pytest.raises(ValueError, match="unknown role 'wizards'"):
            register("wizards", lambda user: HomePart("home/_coordinator.html"))

    def test_it_shows_every_role_someone_holds(self) -> None:
        client = logged_in(make_user("multi", roles.JUDGES, roles.ANNOTATORS))
        html = client.get(reverse("home")).content.decode()
        assert 'data-role="judges"' in html and 'data-role="annotators"' in html

    def test_it_tells_a_person_without_role_what_to_do(self, outsider_client: Client) -> None:
        response = outsider_client.get(reverse("home"))
        assert response.status_code == 200
        assert "no role yet" in response.content.decode()

    def test_it_loads_htmx_and_its_ws_extension_from_static_files(
        self, judge_client: Client
    ) -> None:
        html = judge_client.get(reverse("home")).content.decode()
        assert "django_htmx/htmx" in html and "ws" in html
        assert "https://" not in html.split("<body")[0]
        assert 'hx-headers=\'{"X-CSRFToken": "' in html


class TestLogin:
    def test_it_logs_in_and_out(self, judge: User) -> None:
        client = Client()
        response = client.post(
            reverse("login"), {"username": "jade", "password": "correct-horse-battery"}
        )
        assert response.status_code == 302
        assert client.get(reverse("home")).status_code == 200
        assert client.post(reverse("logout")).status_code == 302
        assert client.get(reverse("home")).status_code == 302

    def test_it_rejects_a_wrong_password(self, judge: User) -> None:
        response = Client().post(reverse("login"), {"username": "jade", "password": "nope"})
        assert response.status_code == 200
        assert "did not match" in response.content.decode()


class TestPasswords:
    def test_it_changes_a_password(self, judge: User, judge_client: Client) -> None:
        response = judge_client.post(
            reverse("password_change"),
            {
                "old_password": "correct-horse-battery",
                "new_password1": "a-much-better-secret-42",
                "new_password2": "a-much-better-secret-42",
            },
        )
        assert response.status_code == 302
        judge.refresh_from_db()
        assert judge.check_password("a-much-better-secret-42")

    def test_it_mails_a_reset_link(self, judge: User) -> None:
        from django.core import mail

        response = Client().post(reverse("password_reset"), {"email": "jade@example.org"})
        assert response.status_code == 302
        assert len(mail.outbox) == 1
        assert "/accounts/reset/" in mail.outbox[0].body


class TestLanguage:
    def test_it_switches_to_chinese(self, judge_client: Client) -> None:
        response = judge_client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
        assert response.status_code == 302
        html = judge_client.get(reverse("home")).content.decode()
        assert 'lang="zh-hans"' in html
        assert "退出" in html

    def test_english_is_the_default(self, judge_client: Client) -> None:
        html = judge_client.get(reverse("home")).content.decode()
        assert 'lang="en"' in html and "Log out" in html


class TestHealthz:
    def test_it_reports_database_and_channel_layer(self) -> None:
        response = Client().get(reverse("healthz"))
        assert response.status_code == 200
        body = json.loads(response.content)
        assert body == {"status": "ok", "checks": {"database": "ok", "channel_layer": "ok"}}

    def test_it_reports_a_broken_channel_layer(self, settings: Any) -> None:
        from channels.layers import channel_layers

        settings.CHANNEL_LAYERS = {"default": {"BACKEND": "no.such.Layer"}}
        channel_layers.backends.clear()
        try:
            response = Client().get(reverse("healthz"))
        finally:
            channel_layers.backends.clear()
        assert response.status_code == 503
        assert json.loads(response.content)["checks"]["channel_layer"].startswith("error")
