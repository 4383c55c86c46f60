"""The LLM as one more intent labeller: a label-choice prompt per utterance, as a resumable job.

The prompt is in the utterance's language (its item's ``lang``: Chinese for ``zh…``, else
English): it lists the track's labels and asks for one JSON object ``{"label": …}`` naming
one of them. Each answer is stored as the LLM's score of the campaign's intent question (the
label's level), apart from people's answers, under the evaluator name
``<model>@intent-label-v1``. Calls go through the one LLM client, so answers are cached; a
resumed job skips utterances already labelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.from_intent.utterances import QUESTION_KEY
from annotation.models import Campaign, Dimension, LLMScore, Transcript
from evalsite import jobs
from evalsite.job_descriptions import JobDescription, JobLink, count, seconds
from evalsite.jobs import JobContext, JobError
from evalsite.language import is_chinese
from evalsite.llm.answers import Message
from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMConfigError
from evalsite.llm.runs import run_with_llm, save_checkpoint
from evalsite.models import Job

LABEL_JOB = "intent_llm_labels"
PROMPT_VERSION = "intent-label-v1"

ENGLISH = (
    "You classify the intent of one user utterance to a voice assistant. Choose exactly one "
    "label from this list: {labels}. Answer with one JSON object and nothing else: "
    '{{"label": "<one label of the list>"}}.'
)
CHINESE = (
    "你要判断用户对语音助手说的一句话的意图。只能从以下标签中选一个：{labels}。"
    '只回答一个 JSON 对象，不要有其他内容：{{"label": "<列表中的一个标签>"}}。'
)


def label_messages(utterance: str, labels: Sequence[str], lang: str) -> list[Message]:
    template = CHINESE if is_chinese(lang) else ENGLISH
    return [
        {"role": "system", "content": template.format(labels=", ".join(labels))},
        {"role": "user", "content": utterance},
    ]


def evaluator_name(config: LLMConfig) -> str:
    return f"{config.model}@{PROMPT_VERSION}"[:100]


def _checked(labels: Sequence[str]) -> Any:
    def validate(value: Any) -> str:
        label = value.get("label") if isinstance(value, dict) else None
        if label not in labels:
            raise ValueError(f"label must be one of {', '.join(labels)}")
        return str(label)

    return validate


def describe_labels(job: Job) -> JobDescription:
    """An LLM labelling run in words, with a link to how its labels agree."""
    name = _("LLM intent labels")
    campaign_id = job.params.get("campaign")
    links = (
        (JobLink(_("How the labels agree"), reverse("from_intent:agreement", args=[campaign_id])),)
        if Campaign.objects.filter(pk=campaign_id).exists()
        else ()
    )
    if job.status != Job.Status.DONE:
        return JobDescription(name, links=links)
    labelled, failed = count(job.result.get("labelled")), count(job.result.get("failed"))
    sentence = ngettext(
        "%(count)s utterance labelled by %(evaluator)s in %(time)s; %(failed)s failed.",
        "%(count)s utterances labelled by %(evaluator)s in %(time)s; %(failed)s failed.",
        labelled,
    ) % {
        "count": labelled,
        "failed": failed,
        "evaluator": job.result.get("evaluator", ""),
        "time": seconds(job),
    }
    return JobDescription(name, sentence, links=links)


@jobs.job_kind(LABEL_JOB, describe=describe_labels)
def label_with_llm(context: JobContext) -> dict[str, Any]:
    """params: campaign (id), llm (endpoint settings)."""
    campaign = Campaign.objects.filter(pk=context.params["campaign"]).first()
    if campaign is None:
        raise JobError(f"there is no annotation campaign {context.params['campaign']}")
    try:
        config = LLMConfig.from_config(context.params["llm"])
    except LLMConfigError as error:
        raise JobError(str(error)) from None
    question = Dimension.objects.get(rubric=campaign.rubric, key=QUESTION_KEY)
    levels = list(question.levels.order_by("value").values_list("value", "label_en"))
    labels = [label for _, label in levels]
    evaluator = evaluator_name(config)
    transcripts = campaign.transcripts.order_by("position")
    done = set(
        LLMScore.objects.filter(dimension=question, evaluator=evaluator).values_list(
            "transcript_id", flat=True
        )
    )
    todo = [t for t in transcripts if t.pk not in done]
    total = transcripts.count()
    context.progress(len(done), total, force=True)
    counter = {"done": len(done), "failed": 0}

    def store(transcript: Transcript, label: str | None, problem: str) -> None:
        with transaction.atomic():
            if label is not None:
                LLMScore.objects.update_or_create(
                    transcript=transcript,
                    dimension=question,
                    evaluator=evaluator,
                    defaults={"score": float(labels.index(label))},
                )
                counter["done"] += 1
            else:
                counter["failed"] += 1
                context.job.errors = [*context.job.errors, f"{transcript.external_id}: {problem}"]
            save_checkpoint(context, counter["done"])

    async def work(llm: LLMClient, transcript: Transcript) -> None:
        messages = label_messages(transcript.turns[0]["text"], labels, transcript.lang)
        answer = await llm.complete_json(messages, _checked(labels))
        await sync_to_async(store)(transcript, answer.value, answer.error)

    usage = run_with_llm(context, config, todo, work)
    return {
        "evaluator": evaluator,
        "labelled": counter["done"],
        "failed": counter["failed"],
        **usage.as_result(),
    }


def create_label_job(campaign: Campaign, llm: dict[str, Any], user: Any = None) -> Job:
    """A labelling job, not yet started; raises LLMConfigError for unusable settings."""
    settings = {**llm, "cache": True}
    LLMConfig.from_config(settings)
    return jobs.create(LABEL_JOB, {"campaign": campaign.pk, "llm": settings}, user=user)
