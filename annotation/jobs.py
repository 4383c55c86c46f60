"""Imports as background jobs: the upload page starts them, the management commands run them.

Each import kind says what it did in words (`describe_import`) for its job page.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.urls import reverse
from django.utils.text import get_valid_filename
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from annotation.imports.bundled_catalogs import CatalogOutcome
from annotation.imports.formats import import_transcripts
from annotation.imports.llm_scores import import_llm_scores
from annotation.imports.problems import ImportFailed
from annotation.imports.progress import Progress
from annotation.imports.writer import REFUSE
from annotation.models import Campaign
from evalsite import jobs
from evalsite.agreement.phrases import Phrase
from evalsite.job_descriptions import JobDescription, JobLink, count, seconds
from evalsite.jobs import JobContext, JobError, job_kind
from evalsite.models import Job
from evalsite.upload_limit import is_disk_full, no_room_error

UPLOAD_ROOT = Path(tempfile.gettempdir()) / "evalsite-uploads"
# Problems beyond this many are summarised, so that a broken file does not flood the job.
PROBLEMS_SHOWN = 20


def store_upload(upload: UploadedFile) -> Path:
    """Save an uploaded file under its own name in a fresh folder; imports name it in messages.

    When the disk is full, the folder and what was written of the file are removed, and the
    form error ``no_room`` is raised: no file cut short is ever left for an import to read.
    """
    folder = UPLOAD_ROOT / uuid.uuid4().hex
    try:
        folder.mkdir(parents=True)
        target = folder / get_valid_filename(Path(upload.name or "upload").name)
        with target.open("wb") as handle:
            for chunk in upload.chunks():
                handle.write(chunk)
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        if is_disk_full(error):
            raise no_room_error() from error
        raise
    return target


def store_uploads(*uploads: UploadedFile | None) -> list[Path | None]:
    """`store_upload` for each upload given (None for those not given); all or none are kept."""
    stored: list[Path | None] = []
    try:
        for upload in uploads:
            stored.append(None if upload is None else store_upload(upload))
    except ValidationError:
        for path in stored:
            discard_upload(str(path) if path else None)
        raise
    return stored


def discard_upload(path: str | None) -> None:
    if path and Path(path).resolve().is_relative_to(UPLOAD_ROOT.resolve()):
        shutil.rmtree(Path(path).parent, ignore_errors=True)


def import_failed(context: JobContext, failure: ImportFailed) -> JobError:
    """The job's error for a file with problems: each problem (the first PROBLEMS_SHOWN) is one
    of the job's errors, with its file, line and field, and the message counts them all."""
    for problem in failure.problems[:PROBLEMS_SHOWN]:
        context.add_error(str(problem))
    if failure.total > PROBLEMS_SHOWN:
        context.add_error(f"… and {failure.total - PROBLEMS_SHOWN} more problems")
    return JobError(
        Phrase(
            gettext_noop("Problems found: %(count)s; nothing was imported."), count=failure.total
        )
    )


def _progress(context: JobContext) -> Progress:
    def report(done: int, total: int, message: str) -> None:
        context.progress(done, total, message)

    return report


def _campaign_link(name: object) -> tuple[JobLink, ...]:
    campaign = Campaign.objects.filter(name=str(name)).first()
    if campaign is None:
        return ()
    url = reverse("annotation:dashboard", args=[campaign.pk])
    return (JobLink(_("Open campaign %(name)s") % {"name": campaign.name}, url),)


def _stopped(job: Job, name: str) -> JobDescription | None:
    """A failed or interrupted import: nothing was written (one transaction or none)."""
    path = str(job.params.get("path") or "")
    resumable = job.status == Job.Status.INTERRUPTED and bool(path) and Path(path).exists()
    if job.status == Job.Status.FAILED:
        sentence = _("Nothing was imported: the file has problems, listed below.")
    elif job.status == Job.Status.INTERRUPTED:
        sentence = _("The import stopped before writing anything.")
    else:
        return None
    return JobDescription(name, sentence, counted=False, resumable=resumable)


def _catalog_line(outcome: CatalogOutcome) -> str:
    files = ", ".join(PurePosixPath(file).name for file in outcome.files)
    if outcome.skipped:
        return _("Catalog file %(files)s skipped: %(reason)s.") % {
            "files": files,
            "reason": outcome.skipped,
        }
    return ngettext(
        "Catalog %(name)s imported from %(files)s: %(count)s item, for the datasets %(datasets)s.",
        "Catalog %(name)s imported from %(files)s: %(count)s items, for the datasets %(datasets)s.",
        outcome.items,
    ) % {
        "name": outcome.name,
        "files": files,
        "count": outcome.items,
        "datasets": ", ".join(outcome.datasets),
    }


def describe_import(job: Job) -> JobDescription:
    """ "48 transcripts imported into campaign X in 0.8 s", with what else the upload held."""
    name = _("Transcript import")
    stopped = _stopped(job, name)
    if stopped is not None or job.status != Job.Status.DONE:
        return stopped or JobDescription(name, counted=False, resumable=False)
    result = job.result
    transcripts = count(result.get("transcripts"))
    sentence = ngettext(
        "%(count)s transcript imported into campaign %(campaign)s in %(time)s.",
        "%(count)s transcripts imported into campaign %(campaign)s in %(time)s.",
        transcripts,
    ) % {"count": transcripts, "campaign": result.get("campaign", ""), "time": seconds(job)}
    details: list[str] = []
    counted_facts = (
        (
            "updated",
            ngettext(
                "%(count)s of them replaced the transcript of the same id.",
                "%(count)s of them replaced the transcripts of the same ids.",
                count(result.get("updated")),
            ),
        ),
        (
            "llm_scores",
            ngettext(
                "%(count)s LLM score came with them.",
                "%(count)s LLM scores came with them.",
                count(result.get("llm_scores")),
            ),
        ),
        (
            "ignored_files",
            ngettext(
                "%(count)s file of the upload is not a dialogue and was left out.",
                "%(count)s files of the upload are not dialogues and were left out.",
                count(result.get("ignored_files")),
            ),
        ),
        (
            "duplicates_skipped",
            ngettext(
                "%(count)s dialogue repeated a persona × attribute cell and was skipped.",
                "%(count)s dialogues repeated a persona × attribute cell and were skipped.",
                count(result.get("duplicates_skipped")),
            ),
        ),
    )
    for key, text in counted_facts:
        if count(result.get(key)):
            details.append(text % {"count": count(result.get(key))})
    if result.get("campaign_created"):
        details.append(_("The campaign was created for them."))
    catalogs = [CatalogOutcome.from_dict(entry) for entry in result.get("catalogs", [])]
    details += [_catalog_line(outcome) for outcome in catalogs]
    links = _campaign_link(result.get("campaign"))
    if any(not outcome.skipped for outcome in catalogs):
        links += (JobLink(_("Item catalogs"), reverse("annotation:catalogs")),)
    return JobDescription(name, sentence, tuple(details), links, counted=False, resumable=False)


def describe_score_import(job: Job) -> JobDescription:
    name = _("LLM score import")
    stopped = _stopped(job, name)
    if stopped is not None or job.status != Job.Status.DONE:
        return stopped or JobDescription(name, counted=False, resumable=False)
    scores = count(job.result.get("llm_scores"))
    sentence = ngettext(
        "%(count)s score of %(evaluator)s imported into campaign %(campaign)s in %(time)s.",
        "%(count)s scores of %(evaluator)s imported into campaign %(campaign)s in %(time)s.",
        scores,
    ) % {
        "count": scores,
        "evaluator": job.result.get("evaluator", ""),
        "campaign": job.result.get("campaign", ""),
        "time": seconds(job),
    }
    links = _campaign_link(job.result.get("campaign"))
    return JobDescription(name, sentence, links=links, counted=False, resumable=False)


@job_kind("annotation.import_transcripts", describe=describe_import)
def import_transcripts_job(context: JobContext) -> dict[str, Any]:
    """params: path, campaign, format, personas (optional), dedupe_cells (optional),
    on_annotated (optional: refuse or version), uploaded (delete the files after),
    annotations_per_item (optional: R of a campaign it creates)."""
    params = context.params
    try:
        result = import_transcripts(
            params["path"],
            params["campaign"],
            format=params["format"],
            personas=params.get("personas"),
            dedupe_cells=bool(params.get("dedupe_cells")),
            on_annotated=params.get("on_annotated") or REFUSE,
            progress=_progress(context),
        )
    except ImportFailed as failure:
        raise import_failed(context, failure) from None
    finally:
        if params.get("uploaded"):
            discard_upload(params["path"])
            discard_upload(params.get("personas"))
    if result.campaign_created and params.get("annotations_per_item"):
        Campaign.objects.filter(name=params["campaign"]).update(
            annotations_per_item=int(params["annotations_per_item"])
        )
    return {"campaign": params["campaign"], **result.as_dict()}


@job_kind("annotation.import_llm_scores", describe=describe_score_import)
def import_llm_scores_job(context: JobContext) -> dict[str, Any]:
    """params: path, campaign, evaluator, format (optional), uploaded."""
    params = context.params
    try:
        result = import_llm_scores(
            params["path"],
            params["campaign"],
            evaluator=params["evaluator"],
            format=params.get("format"),
            progress=_progress(context),
        )
    except ImportFailed as failure:
        raise import_failed(context, failure) from None
    finally:
        if params.get("uploaded"):
            discard_upload(params["path"])
    return {
        "campaign": params["campaign"],
        "evaluator": params["evaluator"],
        "llm_scores": result.llm_scores,
        "lock_seconds": round(result.lock_seconds, 3),
    }


def run_inline(kind: str, params: dict[str, Any], report: Callable[[str], None]) -> Job:
    """Run an import job in this process (for the management commands), reporting each new
    progress message; returns the finished job, done or failed."""
    shown: list[str] = []

    def show(job: Job) -> None:
        if job.message and (not shown or job.message != shown[-1]):
            shown.append(job.message)
            report(f"{job.percent:3d}% {job.message}")

    return jobs.run(jobs.create(kind, params), on_progress=show)
