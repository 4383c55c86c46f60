"""Every page names the site's icon, so browsers do not ask for a missing /favicon.ico."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client


@pytest.mark.django_db
def test_the_login_page_links_an_icon_that_exists() -> None:
    html = Client().get("/accounts/login/").content.decode()
    found = re.search(r'<link rel="icon" href="/static/([^"]+)"', html)
    assert found, "no icon link"
    assert (Path(settings.BASE_DIR) / "static" / found.group(1)).is_file()
