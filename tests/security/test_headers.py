"""Headers on every response, the admin's address, HTTPS behind a proxy, and templates that
keep every script in static files (the policy allows no inline script)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import clear_url_caches, reverse
from pytest_django.fixtures import Settings

from tests.conftest import logged_in

pytestmark = pytest.mark.django_db

TEMPLATES = Path(django_settings.BASE_DIR) / "templates"


@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize("path", ["/accounts/login/", "/healthz", "/api/booking/", "/nowhere/"])
def test_every_response_carries_the_policies(settings: Settings, debug: bool, path: str) -> None:
    settings.DEBUG = debug
    settings.SECURE_SSL_REDIRECT = False
    response = Client().get(path)
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("style-src")[0]
    assert "frame-ancestors 'none'" in policy
    assert "camera=()" in response["Permissions-Policy"]


def test_sockets_may_connect_only_to_the_sites_own_host() -> None:
    policy = Client().get("/accounts/login/", HTTP_HOST="localhost:8000")["Content-Security-Policy"]
    directive = next(part.strip() for part in policy.split(";") if "connect-src" in part)
    # Before: "connect-src 'self' ws: wss:", which let a page's script open a socket anywhere.
    assert directive == "connect-src 'self' ws://localhost:8000 wss://localhost:8000"


def test_signed_in_pages_are_private_and_not_stored(judge: User) -> None:
    response = logged_in(judge).get(reverse("home"))
    assert response.status_code == 200
    cache = {part.strip() for part in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= cache
    assert {"private", "no-store"} <= {
        part.strip() for part in logged_in(judge).get("/live/next/")["Cache-Control"].split(",")
    }


def test_the_proxy_header_is_trusted_only_when_configured(settings: Settings) -> None:
    assert getattr(django_settings, "SECURE_PROXY_SSL_HEADER", None) is None
    settings.SECURE_SSL_REDIRECT = True
    forged = Client().get(reverse("login"), HTTP_X_FORWARDED_PROTO="https")
    assert forged.status_code == 301  # a client cannot claim HTTPS by a header
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert Client().get(reverse("login"), HTTP_X_FORWARDED_PROTO="https").status_code == 200


def test_healthz_answers_over_plain_http(settings: Settings) -> None:
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    assert Client().get("/healthz").status_code == 200
    assert Client().get(reverse("login")).status_code == 301


def test_the_admin_is_off_the_well_known_address(staff: User) -> None:
    client = logged_in(staff)
    assert client.get("/admin/").status_code == 404
    assert reverse("admin:index") == f"/{django_settings.ADMIN_PATH}"
    with override_settings(ADMIN_PATH="backstage/"):
        import importlib

        import evalsite.urls

        clear_url_caches()
        importlib.reload(evalsite.urls)
        try:
            assert reverse("admin:index") == "/backstage/"
        finally:
            clear_url_caches()
    importlib.reload(evalsite.urls)
    clear_url_caches()


def test_no_template_holds_inline_script_or_event_handlers() -> None:
    offences = []
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        for match in re.finditer(
            r"<script(?![^>]*\bsrc=)[^>]*>|\son[a-z]+=|hx-on[:-]|javascript:", text
        ):
            offences.append(f"{template.relative_to(TEMPLATES)}: {match.group(0)}")
        if re.search(r'hx-trigger="[^"]*\[', text):
            offences.append(f"{template.relative_to(TEMPLATES)}: an hx-trigger filter needs eval")
    assert offences == []
