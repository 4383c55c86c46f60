"""The LLM evaluator: an OpenAI-compatible model scores a campaign's transcripts on its rubric.

For each transcript, one request shows the rubric's dimensions that apply to it, with the
description of every level, in the transcript's language, and then the transcript. The model
answers with one JSON object giving, for each dimension, a rationale first and then the score
(the chain of thought CONCEPT asked of its evaluator). A valid answer becomes ``LLMScore`` rows
under an evaluator name that holds the model and the prompt version
(``gpt-4o-mini@concept-v1``), which is where the agreement report reads its LLM raters from.
A malformed answer is asked for once more (``LLMClient.complete_json`` does that); a second
malformed one is recorded on the job as an error, with the raw text, and that transcript is
left unscored.

Scoring runs as the background job ``annotation.llm_score``, from the coordinator's page or
from ``manage.py llm_score``; it is split into parts that several workers run at once, each
scoring its share of the transcripts. Transcripts are scored concurrently, up to the endpoint's
concurrency limit; each transcript's scores are written together with the job's checkpoint in
one transaction, so a resumed job asks nothing about a transcript it has already answered.
The client's response cache is on: a new job over the same transcripts is answered from the
record of calls, costs nothing, and gives the same scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypedDict

from asgiref.sync import sync_to_async
from django.db import transaction
from django.db.models import Count, Prefetch
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from annotation.alignment.versions import (
    FewShotExample,
    few_shot_examples,
    record_version,
    stored_examples,
)
from annotation.imports.writer import LLMScoreRow, upsert_llm_scores
from annotation.llm_evaluator.prompt import (
    PROMPT_VERSION,
    applicable_dimensions,
    evaluation_messages,
    prompt_template,
)
from annotation.llm_evaluator.ranges import IdRanges
from annotation.llm_evaluator.verdict import Verdict, verdict_reader
from annotation.models import Campaign, Dimension, Level, LLMScore, Transcript
from evalsite import jobs
from evalsite.agreement.phrases import Phrase
from evalsite.job_descriptions import JobDescription, JobLink, count, seconds
from evalsite.jobs import JobContext, JobError, job_kind
from evalsite.llm.answers import JSONAnswer
from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMConfigError
from evalsite.llm.runs import RAW_SHOWN, merge_results, run_with_llm, save_checkpoint
from evalsite.models import Job

SCORE_JOB = "annotation.llm_score"
EVALUATOR_MAX_LENGTH = 100
# Errors beyond this many are only counted, so that a broken endpoint cannot bloat the job row.
ERRORS_KEPT = 100


# The evaluator's name ------------------------------------------------------------------------


def evaluator_name(model: str, label: str = "") -> str:
    """``<model>@<prompt version>``, after ``<label>:`` when a label other than the model is given.

    Raises ValueError when the name does not fit the LLMScore column.
    """
    base = f"{model.strip()}@{PROMPT_VERSION}"
    label = label.strip()
    name = f"{label}:{base}" if label and label != model.strip() else base
    if len(name) > EVALUATOR_MAX_LENGTH:
        raise ValueError(
            f"the evaluator name {name!r} is longer than {EVALUATOR_MAX_LENGTH} characters"
        )
    return name


def write_llm_scores(
    transcript: Transcript,
    dimensions: Sequence[Dimension],
    evaluator: str,
    verdicts: dict[str, Verdict],
    now: datetime,
) -> None:
    """Store one transcript's verdicts under ``evaluator``, replacing earlier ones."""
    upsert_llm_scores(
        LLMScoreRow(
            transcript_id=transcript.pk,
            dimension_id=dimension.pk,
            evaluator=evaluator,
            score=verdicts[dimension.key].score,
            rationale=verdicts[dimension.key].rationale,
            imported_at=now,
        )
        for dimension in dimensions
    )


class ScoringRun:
    """The state of one scoring job, as its checkpoint holds it: what is done, what failed."""

    def __init__(self, context: JobContext, evaluator: str, total: int) -> None:
        self.context = context
        self.evaluator = evaluator
        self.total = total
        checkpoint = context.checkpoint
        self.done = IdRanges(checkpoint.get("done", []))
        self.scored = int(checkpoint.get("scored", 0))
        self.failed = int(checkpoint.get("failed", 0))

    def message(self) -> str:
        if self.failed:
            return Phrase(
                gettext_noop("Scored %(scored)s of %(total)s transcripts, %(failed)s failed"),
                scored=self.scored,
                total=self.total,
                failed=self.failed,
            )
        return Phrase(
            gettext_noop("Scored %(scored)s of %(total)s transcripts"),
            scored=self.scored,
            total=self.total,
        )

    def record(
        self,
        transcript: Transcript,
        dimensions: Sequence[Dimension],
        answer: JSONAnswer[dict[str, Verdict]],
    ) -> None:
        """Store a transcript's scores, or its error, with the checkpoint, in one transaction."""
        job = self.context.job
        now = timezone.now()
        with transaction.atomic():
            if answer.value is not None:
                write_llm_scores(transcript, dimensions, self.evaluator, answer.value, now)
                self.scored += 1
            else:
                self.failed += 1
                if len(job.errors) < ERRORS_KEPT:
                    job.errors = [
                        *job.errors,
                        f"{transcript.external_id}: {answer.error}; "
                        f"the answer was: {answer.raw[:RAW_SHOWN]}",
                    ]
            self.done.add(transcript.pk)
            save_checkpoint(
                self.context,
                len(self.done),
                now,
                done=self.done.as_json(),
                scored=self.scored,
                failed=self.failed,
            )
        self.context.progress(len(self.done), message=self.message())


# The job -------------------------------------------------------------------------------------


async def _score_one(
    llm: LLMClient,
    dimensions: Sequence[Dimension],
    examples: Sequence[FewShotExample],
    run: ScoringRun,
    transcript: Transcript,
) -> None:
    asked = applicable_dimensions(transcript, dimensions)
    shown = [example for example in examples if example.transcript.kind == transcript.kind]
    answer = await llm.complete_json(
        evaluation_messages(transcript, asked, shown), verdict_reader(asked)
    )
    await sync_to_async(run.record)(transcript, asked, answer)


def _campaign(campaign_id: Any) -> Campaign:
    campaign = Campaign.objects.select_related("rubric").filter(pk=campaign_id).first()
    if campaign is None:
        raise JobError(f"there is no annotation campaign {campaign_id}")
    return campaign


def _rubric_dimensions(campaign: Campaign) -> list[Dimension]:
    levels = Prefetch("levels", queryset=Level.objects.order_by("value"))
    return list(campaign.rubric.dimensions.scored().prefetch_related(levels))


def describe_scoring(job: Job) -> JobDescription:
    """A scoring run in words: how many transcripts the evaluator scored, and how fast."""
    name = _("LLM evaluator run")
    campaign = Campaign.objects.filter(pk=job.params.get("campaign")).first()
    links = (
        (
            JobLink(
                _("Open the LLM evaluator"), reverse("annotation_llm:campaign", args=[campaign.pk])
            ),
        )
        if campaign is not None
        else ()
    )
    if job.status != Job.Status.DONE:
        return JobDescription(name, links=links)
    scored, failed = count(job.result.get("scored")), count(job.result.get("failed"))
    sentence = ngettext(
        "%(scored)s transcript scored by %(evaluator)s in %(time)s.",
        "%(scored)s transcripts scored by %(evaluator)s in %(time)s.",
        scored,
    ) % {"scored": scored, "evaluator": job.params.get("evaluator", ""), "time": seconds(job)}
    details = (
        (
            ngettext("%(count)s could not be scored.", "%(count)s could not be scored.", failed)
            % {"count": failed},
        )
        if failed
        else ()
    )
    return JobDescription(name, sentence, details, links)


@job_kind(SCORE_JOB, split=True, merge=merge_results, describe=describe_scoring)
def score_campaign(context: JobContext) -> dict[str, Any]:
    """params: campaign (id), evaluator (the stored name), llm (an ``LLMConfig`` mapping),
    few_shot (optional: the version's examples, ``{"transcript": id, "scores": {...}}``).

    Each part of the job scores its share of the transcripts."""
    campaign = _campaign(context.params["campaign"])
    try:
        config = LLMConfig.from_config(context.params["llm"])
    except LLMConfigError as error:
        raise JobError(f"the LLM settings cannot work: {error}") from None
    evaluator = str(context.params["evaluator"])
    dimensions = _rubric_dimensions(campaign)
    transcripts = context.share(
        (
            transcript
            for transcript in campaign.transcripts.order_by("position", "pk")
            if applicable_dimensions(transcript, dimensions)
        ),
        key=lambda transcript: transcript.pk,
    )
    examples = stored_examples(list(context.params.get("few_shot", [])))
    run = ScoringRun(context, evaluator, len(transcripts))
    todo = [transcript for transcript in transcripts if transcript.pk not in run.done]
    context.progress(len(run.done), len(transcripts), run.message(), force=True)
    usage = run_with_llm(
        context,
        config,
        todo,
        lambda llm, transcript: _score_one(llm, dimensions, examples, run, transcript),
    )
    return {
        "campaign": campaign.name,
        "evaluator": evaluator,
        "transcripts": len(transcripts),
        "scored": run.scored,
        "failed": run.failed,
        **usage.as_result(),
    }


def create_scoring_job(
    campaign: Campaign,
    llm: dict[str, Any],
    *,
    label: str = "",
    user: Any = None,
    few_shot: int = 0,
) -> Job:
    """A scoring job for ``campaign``, not yet started, recorded as an evaluator version.

    ``few_shot`` examples come from the campaign's calibration split. Raises ValueError on bad
    settings, or when the evaluator's name already names a version with other settings. The
    response cache is always on for scoring, so re-running costs nothing.
    """
    settings = {**llm, "cache": True}
    config = LLMConfig.from_config(settings)
    name = evaluator_name(config.model, label)
    examples = few_shot_examples(campaign, few_shot)
    record_version(
        campaign,
        name,
        prompt_template=prompt_template(),
        prompt_version=PROMPT_VERSION,
        model=config.model,
        temperature=config.temperature,
        seed=config.seed,
        examples=examples,
    )
    return jobs.create(
        SCORE_JOB,
        {
            "campaign": campaign.pk,
            "evaluator": name,
            "llm": settings,
            "few_shot": [example.as_json() for example in examples],
        },
        user=user,
    )


def scoring_jobs(campaign: Campaign) -> list[Job]:
    """The campaign's scoring jobs, newest first."""
    return list(
        Job.objects.filter(kind=SCORE_JOB, params__campaign=campaign.pk).order_by(
            "-created_at", "-id"
        )
    )


class EvaluatorScores(TypedDict):
    """One evaluator's scores in a campaign: its name, how many transcripts and scores."""

    evaluator: str
    transcripts: int
    scores: int


def evaluators(campaign: Campaign) -> list[EvaluatorScores]:
    """Every evaluator with scores in the campaign, with how many transcripts and scores."""
    return [
        EvaluatorScores(
            evaluator=row["evaluator"], transcripts=row["transcripts"], scores=row["scores"]
        )
        for row in LLMScore.objects.filter(transcript__campaign=campaign)
        .values("evaluator")
        .annotate(transcripts=Count("transcript", distinct=True), scores=Count("pk"))
        .order_by("evaluator")
    ]
