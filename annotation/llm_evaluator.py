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
from ``manage.py llm_score``. Transcripts are scored concurrently, up to the endpoint's
concurrency limit; each transcript's scores are written together with the job's checkpoint in
one transaction, so a resumed job asks nothing about a transcript it has already answered.
The client's response cache is on: a new job over the same transcripts is answered from the
record of calls, costs nothing, and gives the same scores.
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from django.db import transaction
from django.db.models import Count, Prefetch, Q, Sum
from django.utils import timezone

from annotation.models import Campaign, Dimension, Level, LLMScore, Transcript
from evalsite import jobs
from evalsite.jobs import JobContext, JobError, job_kind
from evalsite.llm import (
    COST_PLACES,
    JSONAnswer,
    LLMClient,
    LLMConfig,
    LLMConfigError,
    LLMError,
    Message,
)
from evalsite.models import Job, LLMCall

PROMPT_VERSION = "concept-v1"
SCORE_JOB = "annotation.llm_score"
EVALUATOR_MAX_LENGTH = 100
# Enough of a malformed answer to see what went wrong, without flooding the job's page.
RAW_SHOWN = 500
# Errors beyond this many are only counted, so that a broken endpoint cannot bloat the job row.
ERRORS_KEPT = 100


# The evaluator's name and its bill -------------------------------------------------------------


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


def job_purpose(job: Job) -> str:
    """The purpose the job's LLM calls are recorded under: its usage is summed over it."""
    return f"{job.kind} job {job.pk}"


@dataclass(frozen=True)
class Usage:
    """What one run asked of the endpoint: HTTP requests, answers from the cache, tokens, cost.

    ``cost`` is None when no price is configured. A cached answer costs nothing.
    """

    requests: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    cost: Decimal | None

    @classmethod
    def of(cls, purpose: str) -> Usage:
        figures = LLMCall.objects.filter(purpose=purpose).aggregate(
            requests=Sum("attempts"),
            cache_hits=Count("pk", filter=Q(cached=True)),
            prompt_tokens=Sum("prompt_tokens"),
            completion_tokens=Sum("completion_tokens"),
            cost=Sum("cost"),
        )
        return cls(
            requests=figures["requests"] or 0,
            cache_hits=figures["cache_hits"],
            prompt_tokens=figures["prompt_tokens"] or 0,
            completion_tokens=figures["completion_tokens"] or 0,
            # SQLite sums decimals as floats; the record keeps six places.
            cost=None
            if figures["cost"] is None
            else Decimal(figures["cost"]).quantize(COST_PLACES),
        )

    def as_result(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": None if self.cost is None else str(self.cost),
        }


# The prompt --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PromptText:
    """The fixed wording of the evaluator's prompt in one language."""

    instructions: str
    rubric: str
    question: str
    levels: str
    preferences: str
    accepted: str
    conversation: str
    user: str
    system: str
    response_a: str
    response_b: str
    answer: str
    rationale: str
    score: str
    colon: str


ENGLISH = PromptText(
    instructions=(
        "You are an expert evaluator of conversational systems. You read one conversation "
        "between a user and a system and rate the system on each dimension of a rubric. For "
        "each dimension, first write a short rationale that points to what the system said, "
        "then give the score whose level description fits best. Rate the system, not the "
        "user. Answer with one JSON object and nothing else."
    ),
    rubric="Rubric",
    question="Question",
    levels="Levels",
    preferences="The user's stated preferences",
    accepted="The user accepted",
    conversation="Conversation",
    user="User",
    system="System",
    response_a="Response A",
    response_b="Response B",
    answer=(
        "Answer with this JSON object, one entry per dimension in this order, each with the "
        "rationale first and then the score:"
    ),
    rationale="your reasoning",
    score="a whole number from {low} to {high}",
    colon=": ",
)

CHINESE = PromptText(
    instructions=(
        "你是对话系统的专业评测员。请阅读一段用户与系统之间的对话，按照评分标准的每个维度为系统打分。"
        "对每个维度，先写一段简短的理由，指出系统说了什么，再给出与等级描述最相符的分数。"
        "只评价系统，不评价用户。只回答一个 JSON 对象，不要有其他内容。"
    ),
    rubric="评分标准",
    question="问题",
    levels="等级",
    preferences="用户表达的偏好",
    accepted="用户接受了",
    conversation="对话",
    user="用户",
    system="系统",
    response_a="回复 A",
    response_b="回复 B",
    answer="请按以下 JSON 对象作答，按此顺序每个维度一项，每项先写理由，再给分数：",
    rationale="你的理由",
    score="{low} 到 {high} 的整数",
    colon="：",
)


def speaks_chinese(lang: str) -> bool:
    return lang.lower().startswith("zh")


def applicable_dimensions(
    transcript: Transcript, dimensions: Iterable[Dimension]
) -> list[Dimension]:
    """The rubric's questions that are asked about ``transcript``, in the rubric's order."""
    return [dimension for dimension in dimensions if dimension.applies_to(transcript)]


def _rubric_section(dimensions: Sequence[Dimension], text: PromptText, lang: str) -> list[str]:
    lines = [f"## {text.rubric}"]
    for dimension in dimensions:
        lines += [
            "",
            f"### {dimension.key}: {dimension.name(lang)}",
            f"{text.question}{text.colon}{dimension.question(lang)}",
            f"{text.levels}{text.colon}".rstrip(),
        ]
        lines += [
            f"- {level.value} ({level.label(lang)}): {level.description(lang)}"
            for level in dimension.levels.all()
        ]
    return lines


def _conversation_section(transcript: Transcript, text: PromptText) -> list[str]:
    lines = ["", f"## {text.conversation}"]
    if transcript.preferences:
        lines.append(f"{text.preferences}{text.colon}{', '.join(transcript.preferences)}")
    if transcript.accepted and transcript.accepted_items:
        lines.append(f"{text.accepted}{text.colon}{', '.join(transcript.accepted_items)}")
    # The system's name and the simulated user's feelings stay out: the evaluator judges only
    # what was said, as an annotator who does not know the system would.
    for number, turn in enumerate(transcript.turns, start=1):
        speaker = text.user if turn["role"] == "user" else text.system
        lines.append(f"[{number}] {speaker}{text.colon}{turn['text']}")
    if transcript.is_pairwise:
        assert transcript.response_a is not None and transcript.response_b is not None
        lines.append(f"{text.response_a}{text.colon}{transcript.response_a['text']}")
        lines.append(f"{text.response_b}{text.colon}{transcript.response_b['text']}")
    return lines


def answer_template(dimensions: Sequence[Dimension], text: PromptText) -> str:
    entries = ", ".join(
        f'"{dimension.key}": {{"rationale": "<{text.rationale}>", "score": <'
        f"{text.score.format(low=dimension.scale_min, high=dimension.scale_max)}>}}"
        for dimension in dimensions
    )
    return "{" + entries + "}"


def evaluation_messages(transcript: Transcript, dimensions: Sequence[Dimension]) -> list[Message]:
    """The request for one transcript: the rubric in its language, the dialogue, the format."""
    chinese = speaks_chinese(transcript.lang)
    text = CHINESE if chinese else ENGLISH
    lang = "zh" if chinese else "en"
    body = [
        *_rubric_section(dimensions, text, lang),
        *_conversation_section(transcript, text),
        "",
        text.answer,
        answer_template(dimensions, text),
    ]
    return [
        {"role": "system", "content": text.instructions},
        {"role": "user", "content": "\n".join(body)},
    ]


# The answer --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The evaluator's judgement on one dimension: the reasoning, then the score."""

    rationale: str
    score: int


def verdict_reader(dimensions: Sequence[Dimension]) -> Callable[[Any], dict[str, Verdict]]:
    """A validator for ``complete_json``: every dimension, a rationale, a score in its scale."""

    def read(value: Any) -> dict[str, Verdict]:
        if not isinstance(value, dict):
            raise ValueError("the answer must be a JSON object keyed by dimension")
        missing = [dimension.key for dimension in dimensions if dimension.key not in value]
        if missing:
            raise ValueError(f"there is no verdict for {', '.join(missing)}")
        verdicts: dict[str, Verdict] = {}
        for dimension in dimensions:
            entry = value[dimension.key]
            if not isinstance(entry, dict):
                raise ValueError(f"{dimension.key} must be an object with a rationale and a score")
            rationale = entry.get("rationale")
            if not isinstance(rationale, str) or not rationale.strip():
                raise ValueError(f"{dimension.key} needs a rationale")
            score = entry.get("score")
            if isinstance(score, float) and score.is_integer():
                score = int(score)
            if (
                isinstance(score, bool)
                or not isinstance(score, int)
                or not dimension.in_scale(score)
            ):
                raise ValueError(
                    f"the score of {dimension.key} must be a whole number from "
                    f"{dimension.scale_min} to {dimension.scale_max}, not {score!r}"
                )
            verdicts[dimension.key] = Verdict(rationale.strip(), score)
        return verdicts

    return read


# What a job has done -------------------------------------------------------------------------


class IdRanges:
    """A set of ids kept as sorted, disjoint ``[first, last]`` ranges.

    A campaign's transcripts have mostly consecutive ids, so the checkpoint of a job that has
    scored 100,000 of them stays a few numbers long, although it is written after each one.
    """

    def __init__(self, ranges: Iterable[Sequence[int]] = ()) -> None:
        # Stored ranges come from ``as_json``: already sorted and disjoint.
        self._ranges: list[list[int]] = sorted([int(first), int(last)] for first, last in ranges)

    def _index(self, value: int) -> int:
        """The index of the last range starting at or before ``value``, or -1."""
        return bisect.bisect_right(self._ranges, value, key=lambda pair: pair[0]) - 1

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        index = self._index(value)
        return index >= 0 and self._ranges[index][1] >= value

    def __len__(self) -> int:
        return sum(last - first + 1 for first, last in self._ranges)

    def __iter__(self) -> Iterator[int]:
        for first, last in self._ranges:
            yield from range(first, last + 1)

    def add(self, value: int) -> None:
        if value in self:
            return
        index = self._index(value) + 1
        joins_left = index > 0 and self._ranges[index - 1][1] == value - 1
        joins_right = index < len(self._ranges) and self._ranges[index][0] == value + 1
        if joins_left and joins_right:
            self._ranges[index - 1][1] = self._ranges.pop(index)[1]
        elif joins_left:
            self._ranges[index - 1][1] = value
        elif joins_right:
            self._ranges[index][0] = value
        else:
            self._ranges.insert(index, [value, value])

    def as_json(self) -> list[list[int]]:
        return [list(pair) for pair in self._ranges]


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
        failed = f", {self.failed} failed" if self.failed else ""
        return f"Scored {self.scored} of {self.total} transcripts{failed}"

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
                LLMScore.objects.bulk_create(
                    [
                        LLMScore(
                            transcript=transcript,
                            dimension=dimension,
                            evaluator=self.evaluator,
                            score=answer.value[dimension.key].score,
                            rationale=answer.value[dimension.key].rationale,
                            imported_at=now,
                        )
                        for dimension in dimensions
                    ],
                    update_conflicts=True,
                    unique_fields=["transcript", "dimension", "evaluator"],
                    update_fields=["score", "rationale", "imported_at"],
                )
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
            self.context.checkpoint.update(
                done=self.done.as_json(), scored=self.scored, failed=self.failed
            )
            Job.objects.filter(pk=job.pk).update(
                checkpoint=self.context.checkpoint,
                errors=job.errors,
                done=len(self.done),
                heartbeat_at=now,
            )
        self.context.progress(len(self.done), message=self.message())


# The job -------------------------------------------------------------------------------------


async def _score(
    transcripts: Sequence[Transcript],
    dimensions: Sequence[Dimension],
    config: LLMConfig,
    purpose: str,
    run: ScoringRun,
) -> None:
    pending = iter(transcripts)
    record = sync_to_async(run.record)
    async with LLMClient(config, purpose=purpose) as llm:

        async def work() -> None:
            # Workers share one iterator: each takes the next transcript when it is free.
            for transcript in pending:
                asked = applicable_dimensions(transcript, dimensions)
                answer = await llm.complete_json(
                    evaluation_messages(transcript, asked), verdict_reader(asked)
                )
                await record(transcript, asked, answer)

        workers = [
            asyncio.create_task(work()) for _ in range(min(config.concurrency, len(transcripts)))
        ]
        try:
            await asyncio.gather(*workers)
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)


def _campaign(campaign_id: Any) -> Campaign:
    campaign = Campaign.objects.select_related("rubric").filter(pk=campaign_id).first()
    if campaign is None:
        raise JobError(f"there is no annotation campaign {campaign_id}")
    return campaign


def _rubric_dimensions(campaign: Campaign) -> list[Dimension]:
    levels = Prefetch("levels", queryset=Level.objects.order_by("value"))
    return list(campaign.rubric.dimensions.prefetch_related(levels))


@job_kind(SCORE_JOB)
def score_campaign(context: JobContext) -> dict[str, Any]:
    """params: campaign (id), evaluator (the stored name), llm (an ``LLMConfig`` mapping)."""
    campaign = _campaign(context.params["campaign"])
    try:
        config = LLMConfig.from_config(context.params["llm"])
    except LLMConfigError as error:
        raise JobError(f"the LLM settings cannot work: {error}") from None
    evaluator = str(context.params["evaluator"])
    dimensions = _rubric_dimensions(campaign)
    transcripts = [
        transcript
        for transcript in campaign.transcripts.order_by("position", "pk")
        if applicable_dimensions(transcript, dimensions)
    ]
    run = ScoringRun(context, evaluator, len(transcripts))
    todo = [transcript for transcript in transcripts if transcript.pk not in run.done]
    context.progress(len(run.done), len(transcripts), run.message(), force=True)
    purpose = job_purpose(context.job)
    try:
        async_to_sync(_score)(todo, dimensions, config, purpose, run)
    except LLMError as error:
        raise JobError(
            f"the LLM endpoint failed ({error.reason}); resume the job to go on where it stopped"
        ) from None
    return {
        "campaign": campaign.name,
        "evaluator": evaluator,
        "transcripts": len(transcripts),
        "scored": run.scored,
        "failed": run.failed,
        **Usage.of(purpose).as_result(),
    }


def create_scoring_job(
    campaign: Campaign, llm: dict[str, Any], *, label: str = "", user: Any = None
) -> Job:
    """A scoring job for ``campaign``, not yet started; raises ValueError on bad settings.

    The response cache is always on for scoring, so re-running costs nothing.
    """
    settings = {**llm, "cache": True}
    config = LLMConfig.from_config(settings)
    name = evaluator_name(config.model, label)
    return jobs.create(
        SCORE_JOB,
        {"campaign": campaign.pk, "evaluator": name, "llm": settings},
        user=user,
    )


def scoring_jobs(campaign: Campaign) -> list[Job]:
    """The campaign's scoring jobs, newest first."""
    return list(
        Job.objects.filter(kind=SCORE_JOB, params__campaign=campaign.pk).order_by(
            "-created_at", "-id"
        )
    )


def evaluators(campaign: Campaign) -> list[dict[str, Any]]:
    """Every evaluator with scores in the campaign, with how many transcripts and scores."""
    return list(
        LLMScore.objects.filter(transcript__campaign=campaign)
        .values("evaluator")
        .annotate(transcripts=Count("transcript", distinct=True), scores=Count("pk"))
        .order_by("evaluator")
    )
