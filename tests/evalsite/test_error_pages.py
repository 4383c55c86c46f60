"""The 403, 404 and 500 pages: the site's layout, in the reader's language."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.test import Client, RequestFactory
from django.utils import translation
from django.views.defaults import server_error

pytestmark = pytest.mark.django_db

LANGUAGES = [("en", "This page does not exist"), ("zh-hans", "此页面不存在")]


@pytest.mark.parametrize(("lang", "heading"), LANGUAGES)
def test_a_missing_page_has_the_sites_layout(
    annotator_client: Client, lang: str, heading: str
) -> None:
    response = annotator_client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 404
    html = response.content.decode()
    assert 'class="topbar"' in html
    assert heading in html
    assert f'<html lang="{lang}">' in html


@pytest.mark.parametrize(
    ("lang", "heading"), [("en", "You may not open this page"), ("zh-hans", "您无权打开此页面")]
)
def test_a_forbidden_page_has_the_sites_layout(
    annotator: User, annotator_client: Client, lang: str, heading: str
) -> None:
    response = annotator_client.get("/jobs/", HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 403
    html = response.content.decode()
    assert 'class="topbar"' in html
    assert heading in html
    assert annotator.username in html


@pytest.mark.parametrize(
    ("lang", "heading"), [("en", "Something went wrong on our side"), ("zh-hans", "服务器出错了")]
)
def test_a_server_error_renders_without_a_request_context(lang: str, heading: str) -> None:
    with translation.override(lang):
        response = server_error(RequestFactory().get("/"))
        bare = render_to_string("500.html")
    assert response.status_code == 500
    for html in (response.content.decode(), bare):
        assert 'class="topbar"' in html
        assert heading in html
        # Without a request there is no CSRF token, so no form that would post without one.
        assert "set_language" not in html and "/i18n/setlang/" not in html
