"""What the fidelity jobs' pages say: a simulator's run, the requests' embedding and the
reviews' aspect labelling, in words.

"Simulator gpt-4o DI+PP (DI+PP) answered 120 prompts of study Films in 4.2 s", with a link to
the study. A stopped job resumes only while what it worked on (the simulator, the study) is
still there.
"""

from __future__ import annotations

from collections.abc import Callable

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from evalsite.job_descriptions import JobDescription, JobLink, count, seconds
from evalsite.models import Job
from fidelity.models import Simulator, Study


def _study_links(study: Study | None) -> tuple[JobLink, ...]:
    if study is None:
        return ()
    url = reverse("fidelity:study", args=[study.pk])
    return (JobLink(_("Open study %(name)s") % {"name": study.name}, url),)


def _failures(job: Job, said: Callable[[int], str]) -> tuple[str, ...]:
    """The line saying how many items got nothing usable, if any did."""
    failed = count(job.result.get("failed"))
    return (said(failed) % {"count": failed},) if failed else ()


def describe_simulation(job: Job) -> JobDescription:
    """A simulator's answers in words: how many prompts, of which study, how long it took."""
    name = _("Simulator answering a fidelity study")
    simulator = (
        Simulator.objects.select_related("study").filter(pk=job.params.get("simulator")).first()
    )
    study = simulator.study if simulator is not None else None
    links = _study_links(study)
    if job.status != Job.Status.DONE:
        return JobDescription(name, links=links, resumable=simulator is not None)
    answered = count(job.result.get("answered"))
    sentence = ngettext(
        "Simulator %(label)s (%(configuration)s) answered %(count)s prompt of study %(study)s "
        "in %(time)s.",
        "Simulator %(label)s (%(configuration)s) answered %(count)s prompts of study %(study)s "
        "in %(time)s.",
        answered,
    ) % {
        "label": job.result.get("simulator", ""),
        "configuration": simulator.configuration if simulator is not None else "",
        "count": answered,
        "study": study.name if study is not None else "",
        "time": seconds(job),
    }
    details = _failures(
        job,
        lambda failed: ngettext(
            "%(count)s prompt got no usable answer; it is named below.",
            "%(count)s prompts got no usable answer; they are named below.",
            failed,
        ),
    )
    return JobDescription(name, sentence, details, links, resumable=simulator is not None)


def _by_a_model(
    job: Job,
    name: str,
    done_key: str,
    said: Callable[[int], str],
    failures: Callable[[int], str] | None = None,
) -> JobDescription:
    """A job in which one model worked through a study's answers: how many, by which model."""
    study = Study.objects.filter(pk=job.params.get("study")).first()
    links = _study_links(study)
    if job.status != Job.Status.DONE:
        return JobDescription(name, links=links, resumable=study is not None)
    done = count(job.result.get(done_key))
    sentence = said(done) % {
        "count": done,
        "study": study.name if study is not None else "",
        "model": job.result.get("model", ""),
        "time": seconds(job),
    }
    details = _failures(job, failures) if failures is not None else ()
    return JobDescription(name, sentence, details, links, resumable=study is not None)


def describe_embedding(job: Job) -> JobDescription:
    """The requests' embedding in words: how many, by which model, for which study."""
    return _by_a_model(
        job,
        _("Embedding a fidelity study's requests"),
        "embedded",
        lambda done: ngettext(
            "%(count)s recommendation request of study %(study)s embedded by %(model)s in "
            "%(time)s.",
            "%(count)s recommendation requests of study %(study)s embedded by %(model)s in "
            "%(time)s.",
            done,
        ),
    )


def describe_labelling(job: Job) -> JobDescription:
    """The reviews' aspect labelling in words: how many, by which model, for which study."""
    return _by_a_model(
        job,
        _("Labelling a fidelity study's review aspects"),
        "labelled",
        lambda done: ngettext(
            "%(count)s open-preference review of study %(study)s labelled by %(model)s in "
            "%(time)s.",
            "%(count)s open-preference reviews of study %(study)s labelled by %(model)s in "
            "%(time)s.",
            done,
        ),
        lambda failed: ngettext(
            "%(count)s review got no usable labels; it is named below.",
            "%(count)s reviews got no usable labels; they are named below.",
            failed,
        ),
    )
