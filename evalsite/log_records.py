"""How log lines are written: once each, and a refusal (403) as one line.

Every logger of the project hands its records to the root logger's one handler, which
``evalsite.settings.LOGGING`` sets (replacing any that daphne's start-up added), so no
line is written twice. :class:`ForbiddenOnOneLine` drops the traceback that Django
attaches to "Forbidden" records and to its security refusals (a request for a host that is
not allowed, a suspicious session): a refused request is an expected event, not a crash.
"""

from __future__ import annotations

import logging


class ForbiddenOnOneLine(logging.Filter):
    """Keeps a 403's record, without its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403 or record.name.startswith(
            "django.security."
        ):
            record.exc_info = None
            record.exc_text = None
        return True
