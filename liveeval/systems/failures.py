"""Any failure of a system's adapter, of any exception type, named in words.

:func:`liveeval.conversation.exchange` turns whatever an adapter raises into a
:class:`SystemUnavailable`, so the dialogue gets a stored notice and the session stays
usable. The judge reads what went wrong in plain words ("reply nested too deeply"), never
an exception's class or a traceback; the log gets the same words.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from liveeval.systems.base import SystemUnavailable


def nested_too_deeply(where: str) -> SystemUnavailable:
    return SystemUnavailable(
        f"{where}: reply nested too deeply",
        _("The system failed to answer: its reply was nested too deeply to read."),
    )


def failure_from(error: BaseException) -> SystemUnavailable:
    """The notice for an adapter's unexpected ``error``."""
    if isinstance(error, SystemUnavailable):
        return error
    if isinstance(error, RecursionError):
        return nested_too_deeply("the system's adapter")
    if isinstance(error, MemoryError):
        return SystemUnavailable(
            "reply too large to hold in memory",
            _("The system failed to answer: its reply was too large."),
        )
    if isinstance(error, UnicodeError):
        return SystemUnavailable(
            "reply is not valid text",
            _("The system failed to answer: its reply was not valid text."),
        )
    if isinstance(error, ConnectionError | OSError):
        return SystemUnavailable(
            "connection to the system failed",
            _("The system failed to answer: the connection to it failed."),
        )
    if isinstance(error, ValueError | TypeError | KeyError | LookupError):
        return SystemUnavailable(
            "reply could not be read",
            _("The system failed to answer: its reply could not be read."),
        )
    return SystemUnavailable(
        "the system's adapter failed", _("The system failed to answer: its adapter failed.")
    )
