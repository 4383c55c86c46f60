"""Log lines are written once, and a 403 is one line without a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

pytestmark = pytest.mark.processes

SCRIPT = """
import logging
logging.basicConfig(level=logging.INFO)  # as daphne does before loading the application
import django
django.setup()
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseForbidden
from django.test import RequestFactory
from django.utils.log import log_response
logging.getLogger("liveeval.conversation").warning("written once")
request = RequestFactory().get("/refused/")
try:
    raise PermissionDenied
except PermissionDenied as exc:
    log_response("Forbidden (Permission denied): %s", request.path,
                 response=HttpResponseForbidden(), request=request, exception=exc)
from django.test import Client
Client(HTTP_HOST="evil.example").get("/healthz")
"""


def test_each_line_is_written_once_and_a_403_has_no_traceback() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "evalsite.settings", "DEBUG": "1"}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    output = result.stderr
    assert output.count("written once") == 1, output
    assert output.count("Forbidden (Permission denied): /refused/") == 1, output
    # A request for a host that is not allowed is one line too.
    assert output.count("Invalid HTTP_HOST header: 'evil.example'") == 1, output
    assert "Traceback" not in output
