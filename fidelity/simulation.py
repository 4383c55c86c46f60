"""A simulator answering the study's prompts: a resumable, cached LLM job with progress.

Each prompt is put to the simulator's model (`fidelity.simulator_prompts`), and its JSON answer
is stored as a typed `Answer` of the simulator's group: the items an items-talk answer mentions
are found by title in the study's catalog; an open preference's aspects come in the same JSON
answer; an IH simulator's items-talk answer records the items of its history, which are removed
from its mentions like the prompt's own. Every call goes through the one LLM client, so answers
are recorded and cached; a resumed job skips the prompts already answered. A prompt the model
cannot answer in shape is counted as failed and named in the job's errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction

from annotation.concept.catalogs import Catalog
from evalsite import jobs
from evalsite.jobs import JobContext, JobError
from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMConfigError
from evalsite.llm.runs import run_with_llm, save_checkpoint
from evalsite.models import Job
from fidelity.content import (
    AcceptRejectPayload,
    AnswerPayload,
    Aspect,
    AspectsPayload,
    ChoicePayload,
    FeedbackContent,
    MentionsPayload,
    TextPayload,
    YesNoPayload,
    payload_json,
)
from fidelity.job_descriptions import describe_simulation
from fidelity.matching import mentioned_items, study_catalog
from fidelity.models import Answer, Prompt, Simulator
from fidelity.simulator_prompts import (
    PROMPT_VERSION,
    RatedItem,
    shown_history,
    simulator_messages,
)

SIMULATE_JOB = "fidelity_simulate"
SENTIMENTS = ("positive", "negative", "neutral")


def _text_field(value: Any, name: str) -> str:
    text = value.get(name) if isinstance(value, dict) else None
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f'the answer needs "{name}" as non-empty text')
    return text.strip()


def read_aspects(value: Any) -> tuple[Aspect, ...]:
    """The aspects of a JSON answer, each with a sentiment: positive, negative or neutral."""
    aspects = value.get("aspects") if isinstance(value, dict) else None
    if not isinstance(aspects, list):
        raise ValueError('the answer needs "aspects" as a list')
    found = []
    for entry in aspects:
        if not isinstance(entry, dict) or not str(entry.get("aspect") or "").strip():
            raise ValueError('each aspect needs an "aspect"')
        sentiment = str(entry.get("sentiment") or "").strip().lower()
        if sentiment not in SENTIMENTS:
            raise ValueError("each sentiment is positive, negative or neutral")
        found.append(Aspect(str(entry["aspect"]).strip(), sentiment))
    return tuple(found)


def _choice(value: Any, allowed: dict[str, str], name: str) -> str:
    raw = value.get(name) if isinstance(value, dict) else None
    chosen = allowed.get(str(raw).strip().lower()) if raw is not None else None
    if chosen is None:
        raise ValueError(f'"{name}" must be one of {", ".join(sorted(set(allowed)))}')
    return chosen


def answer_reader(
    task: str, content: Any, catalog: Catalog, history: tuple[str, ...] = ()
) -> Callable[[Any], AnswerPayload]:
    """The validator of a simulator's JSON answer to a prompt, giving its typed payload;
    ``history`` is the ids of the items shown as the simulator's history with the prompt."""

    def read(value: Any) -> AnswerPayload:
        if task == "items_talk":
            text = _text_field(value, "text")
            return MentionsPayload(text, mentioned_items(text, catalog), history=history)
        if task == "bin_pref":
            return YesNoPayload(_choice(value, {"yes": "yes", "no": "no"}, "answer") == "yes")
        if task == "open_pref":
            return AspectsPayload(_text_field(value, "review"), read_aspects(value))
        if task == "rec_request":
            return TextPayload(_text_field(value, "request"))
        assert isinstance(content, FeedbackContent)
        if content.is_comparison:
            sides = {"a": "a", "b": "b", "neither": "neither"}
            return ChoicePayload(_choice(value, sides, "choice"))  # type: ignore[arg-type]
        verdicts = {"accept": "accept", "reject": "reject"}
        return AcceptRejectPayload(_choice(value, verdicts, "answer") == "accept")

    return read


@jobs.job_kind(SIMULATE_JOB, describe=describe_simulation)
def simulate(context: JobContext) -> dict[str, Any]:
    """params: simulator (id); the endpoint settings are the simulator's."""
    simulator = Simulator.objects.select_related("study").filter(pk=context.params["simulator"])
    found = simulator.first()
    if found is None:
        raise JobError(f"there is no simulator {context.params['simulator']}")
    try:
        config = LLMConfig.from_config({**found.llm, "cache": True})
    except LLMConfigError as error:
        raise JobError(str(error)) from None
    study = found.study
    catalog = study_catalog(study)
    history = [
        RatedItem(item.title, item.avg_rating, item.item_id) for item in study.items.order_by("id")
    ]
    prompts = list(study.prompts.order_by("task", "position"))
    done = set(found.answers.values_list("prompt_id", flat=True))
    todo = [prompt for prompt in prompts if prompt.pk not in done]
    context.progress(len(done), len(prompts), force=True)
    counter = {"done": len(done), "failed": 0}

    def store(prompt: Prompt, payload: AnswerPayload | None, problem: str) -> None:
        with transaction.atomic():
            if payload is not None:
                Answer.objects.update_or_create(
                    prompt=prompt,
                    group=found.label,
                    responder=prompt.key,
                    defaults={
                        "source": Answer.Source.SIMULATOR,
                        "simulator": found,
                        "payload": payload_json(payload),
                    },
                )
                counter["done"] += 1
            else:
                counter["failed"] += 1
                context.job.errors = [*context.job.errors, f"{prompt.key}: {problem}"]
            save_checkpoint(context, counter["done"])

    async def work(llm: LLMClient, prompt: Prompt) -> None:
        content = prompt.shown()
        shown: tuple[str, ...] = ()
        if found.configuration == Simulator.Configuration.IH:
            chosen = shown_history(content, history, key=prompt.key, seed=study.seed)
            shown = tuple(item.item_id for item in chosen)
        messages = simulator_messages(
            prompt.task,
            content,
            configuration=found.configuration,
            language=study.language,
            key=prompt.key,
            seed=study.seed,
            history=history,
        )
        answer = await llm.complete_json(
            messages, answer_reader(prompt.task, content, catalog, shown)
        )
        await sync_to_async(store)(prompt, answer.value, answer.error)

    usage = run_with_llm(context, config, todo, work)
    return {
        "simulator": found.label,
        "prompt_version": PROMPT_VERSION,
        "answered": counter["done"],
        "failed": counter["failed"],
        **usage.as_result(),
    }


def create_simulation_job(simulator: Simulator, user: Any = None) -> Job:
    """A job that has ``simulator`` answer its study's prompts, not yet started."""
    LLMConfig.from_config({**simulator.llm, "cache": True})
    return jobs.create(SIMULATE_JOB, {"simulator": simulator.pk}, user=user)
