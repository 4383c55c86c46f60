"""The chosen interface language follows the person, not only the browser."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evalsite.models import InterfaceLanguage
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_the_switch_stores_the_choice(annotator: User, annotator_client: Client) -> None:
    response = annotator_client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    assert response.status_code == 302
    assert InterfaceLanguage.objects.get(user=annotator).language == "zh-hans"


def test_an_anonymous_switch_stores_nothing() -> None:
    Client().post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    assert not InterfaceLanguage.objects.exists()


def test_a_new_browser_shows_the_stored_language_after_login(annotator: User) -> None:
    InterfaceLanguage.objects.create(user=annotator, language="zh-hans")
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    login = browser.post(reverse("login"), {"username": annotator.username, "password": PASSWORD})
    assert login.status_code == 302
    assert browser.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    home = browser.get(reverse("home"))
    assert '<html lang="zh-hans">' in home.content.decode()
    # The stored choice wins over an English cookie left by another person on this browser.
    browser.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    assert '<html lang="zh-hans">' in browser.get(reverse("home")).content.decode()


def test_without_a_stored_choice_the_browser_decides(annotator_client: Client) -> None:
    html = annotator_client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in html
