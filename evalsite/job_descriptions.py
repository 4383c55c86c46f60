"""What a job page says about a job, in words: each job kind describes its own jobs.

A kind registers a :data:`Describe` hook with ``@job_kind(..., describe=...)``. The hook turns
a job into a :class:`JobDescription`: the kind's name for people ("Transcript import"), one
sentence saying what happened ("48 transcripts imported into campaign X in 0.8 s"), links to
what the job made, whether its progress counts things a person would count, and whether it can
actually resume. Job pages show nothing else of a job's parameters or result, so no raw key,
internal kind name or server path reaches a person.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

if TYPE_CHECKING:
    from evalsite.models import Job


@dataclass(frozen=True)
class JobLink:
    """A page the job filled or made, named for the person who reads the job page."""

    label: str
    url: str


@dataclass(frozen=True)
class JobDescription:
    """A job in words. ``sentence`` is empty until there is something to say; ``counted`` says
    whether the job's done / total are things the reader counts (transcripts, dialogues), and
    not internal steps; ``resumable`` whether resuming would continue the work."""

    name: str
    sentence: str = ""
    # Further facts, one line each (the catalogs an import brought, ...).
    details: tuple[str, ...] = ()
    links: tuple[JobLink, ...] = ()
    counted: bool = True
    resumable: bool = True


Describe = Callable[["Job"], JobDescription]

_DESCRIBERS: dict[str, Describe] = {}


def register(kind: str, describe: Describe) -> None:
    _DESCRIBERS[kind] = describe


def describe(job: Job) -> JobDescription:
    """The job in words, by its kind's hook; a kind without one is only a background job."""
    describer = _DESCRIBERS.get(job.kind)
    if describer is None:
        return JobDescription(name=_("Background job"), counted=False)
    return describer(job)


def seconds(job: Job) -> str:
    """How long the job ran, as "0.8 s" or "3 min 5 s"."""
    if job.started_at is None or job.finished_at is None:
        return ""
    elapsed = max(0.0, (job.finished_at - job.started_at).total_seconds())
    if elapsed < 60:
        return _("%(seconds)s s") % {"seconds": f"{elapsed:.1f}"}
    minutes, rest = divmod(round(elapsed), 60)
    return _("%(minutes)s min %(seconds)s s") % {"minutes": minutes, "seconds": rest}


def count(value: object) -> int:
    """A whole number from a job's stored result, 0 when it holds none."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
