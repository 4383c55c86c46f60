"""Imports as background jobs: the upload page starts them, the management commands run them."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import UploadedFile
from django.utils.text import get_valid_filename

from annotation.imports.formats import import_transcripts
from annotation.imports.llm_scores import import_llm_scores
from annotation.imports.problems import ImportFailed
from annotation.imports.progress import Progress
from annotation.imports.writer import REFUSE
from evalsite import jobs
from evalsite.jobs import JobContext, JobError, job_kind
from evalsite.models import Job

UPLOAD_ROOT = Path(tempfile.gettempdir()) / "evalsite-uploads"
# Problems beyond this many are summarised, so that a broken file does not flood the job.
PROBLEMS_SHOWN = 20


def store_upload(upload: UploadedFile) -> Path:
    """Save an uploaded file under its own name in a fresh folder; imports name it in messages."""
    folder = UPLOAD_ROOT / uuid.uuid4().hex
    folder.mkdir(parents=True)
    target = folder / get_valid_filename(Path(upload.name or "upload").name)
    with target.open("wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
    return target


def _discard_upload(path: str | None) -> None:
    if path and Path(path).resolve().is_relative_to(UPLOAD_ROOT.resolve()):
        shutil.rmtree(Path(path).parent, ignore_errors=True)


def _fail(context: JobContext, failure: ImportFailed) -> JobError:
    for problem in failure.problems[:PROBLEMS_SHOWN]:
        context.add_error(str(problem))
    if failure.total > PROBLEMS_SHOWN:
        context.add_error(f"… and {failure.total - PROBLEMS_SHOWN} more problems")
    return JobError(f"{failure.total} problem(s) found; nothing was imported.")


def _progress(context: JobContext) -> Progress:
    def report(done: int, total: int, message: str) -> None:
        context.progress(done, total, message)

    return report


@job_kind("annotation.import_transcripts")
def import_transcripts_job(context: JobContext) -> dict[str, Any]:
    """params: path, campaign, format, personas (optional), dedupe_cells (optional),
    on_annotated (optional: refuse or version), uploaded (delete the files after)."""
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
        raise _fail(context, failure) from None
    finally:
        if params.get("uploaded"):
            _discard_upload(params["path"])
            _discard_upload(params.get("personas"))
    return {"campaign": params["campaign"], **result.as_dict()}


@job_kind("annotation.import_llm_scores")
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
        raise _fail(context, failure) from None
    finally:
        if params.get("uploaded"):
            _discard_upload(params["path"])
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
