"""Progress reports of a running import: a callback, called every `PROGRESS_EVERY` units.

Readers estimate their work from the input's line count before reading it, and count twice
that (checking, then writing), so the bar moves evenly through both phases.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.utils.translation import gettext_noop

from evalsite.agreement.phrases import Param, Phrase

# (done, total, message)
Progress = Callable[[int, int, str], None]

PROGRESS_EVERY = 500


def count_lines(path: Path) -> int:
    count = 0
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            count += chunk.count(b"\n")
    return count + 1


def report_progress(
    progress: Progress | None, done: int, estimate: int, msgid: str, **params: Param
) -> None:
    """Report every `PROGRESS_EVERY` units; the message (a `Phrase` of ``msgid`` and
    ``params``) is made only then, since this is called for every line."""
    if progress is not None and done % PROGRESS_EVERY == 0:
        progress(done, max(estimate, done + 1), Phrase(msgid, **params))


def report_line(progress: Progress | None, done: int, estimate: int, line: int) -> None:
    """`report_progress` for a reader going line by line: "Checking line 12"."""
    report_progress(progress, done, estimate, gettext_noop("Checking line %(line)s"), line=line)
