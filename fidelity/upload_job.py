"""A study's items or requests file, read and stored by a background job with progress.

The study page saves the upload to disk and starts the job, as the annotation imports do
(`annotation.jobs`): a file of up to the import limit (``EVALSITE_IMPORT_MAX_UPLOAD_MB``) is
read by a worker, a line at a time, with the job page showing how far it is, and never holds a
web request. Every problem is one of the job's errors with its file, line and field; then
nothing is stored and the study keeps what it had. A file is refused once the study's prompts
are drawn, when it is uploaded and again when the job runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.files.uploadedfile import UploadedFile
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from annotation.imports.problems import ImportFailed
from annotation.jobs import discard_upload, import_failed, store_upload
from evalsite import jobs
from evalsite.agreement.phrases import Phrase
from evalsite.job_descriptions import JobDescription, JobLink, count, seconds
from evalsite.jobs import JobContext, JobError
from evalsite.models import Job
from fidelity.imports import read_items, read_requests, store_items, store_requests
from fidelity.matching import catalog_warning
from fidelity.models import Study

UPLOAD_JOB = "fidelity.import_rows"
KINDS = ("items", "requests")
REUPLOAD_REFUSED = gettext_noop(
    "The prompts were drawn from this study's items and requests already; uploading them again "
    "would change what the prompts and their answers refer to. Start a new study for new data."
)


def start_upload(
    study: Study, kind: str, file: UploadedFile, user: AbstractBaseUser | AnonymousUser
) -> Job:
    """Save ``file`` to disk and start the job that reads and stores it."""
    params = {"study": study.pk, "kind": kind, "path": str(store_upload(file)), "uploaded": True}
    job = jobs.create(UPLOAD_JOB, params, user=user)
    jobs.start(job)
    return job


def lines_in(path: Path) -> int:
    """How many lines the file holds (the last one may lack its newline), counted in pieces."""
    lines, last = 0, b"\n"
    with path.open("rb") as handle:
        while piece := handle.read(1 << 20):
            lines += piece.count(b"\n")
            last = piece[-1:]
    return lines + (last != b"\n")


def _study_url(study: Study) -> str:
    return reverse("fidelity:study", args=[study.pk])


def describe_upload(job: Job) -> JobDescription:
    """ "120 rows imported into study Films in 0.4 s", with what the study's catalog lacks."""
    name = _("Study file import")
    study = Study.objects.select_related("catalog").filter(pk=job.params.get("study")).first()
    links = (
        (JobLink(_("Open study %(name)s") % {"name": study.name}, _study_url(study)),)
        if study is not None
        else ()
    )
    if job.status == Job.Status.FAILED:
        sentence = _("Nothing was imported: the file has problems, listed below.")
        return JobDescription(name, sentence, links=links, counted=False, resumable=False)
    if job.status != Job.Status.DONE:
        path = str(job.params.get("path") or "")
        resumable = study is not None and bool(path) and Path(path).exists()
        return JobDescription(name, links=links, counted=False, resumable=resumable)
    rows = count(job.result.get("rows"))
    sentence = ngettext(
        "%(count)s row imported into study %(study)s in %(time)s.",
        "%(count)s rows imported into study %(study)s in %(time)s.",
        rows,
    ) % {"count": rows, "study": study.name if study else "", "time": seconds(job)}
    warning = catalog_warning(study) if study is not None and job.params["kind"] == "items" else ""
    details = (warning,) if warning else ()
    return JobDescription(name, sentence, details, links, counted=False, resumable=False)


@jobs.job_kind(UPLOAD_JOB, describe=describe_upload)
def import_rows(context: JobContext) -> dict[str, Any]:
    """params: study (id), kind (items or requests), path, uploaded (delete the file after)."""
    params = context.params
    path = Path(params["path"])
    try:
        study = Study.objects.filter(pk=params["study"]).first()
        if study is None:
            raise JobError(f"there is no study {params['study']}")
        if study.prompts.exists():
            raise JobError(Phrase(REUPLOAD_REFUSED))
        total = lines_in(path)
        checking = Phrase(gettext_noop("Checking %(count)s lines"), count=total)
        context.progress(0, total, checking, force=True)

        def report(line: int) -> None:
            context.progress(line, total, checking)

        try:
            if params["kind"] == "items":
                stored = store_items(study, read_items(path, report))
            else:
                stored = store_requests(study, read_requests(path, report))
        except ImportFailed as failure:
            raise import_failed(context, failure) from None
        stored_rows = Phrase(gettext_noop("Stored %(count)s rows"), count=stored)
        context.progress(total, total, stored_rows, force=True)
    finally:
        if params.get("uploaded"):
            discard_upload(str(path))
    return {"study": study.pk, "kind": params["kind"], "rows": stored}
