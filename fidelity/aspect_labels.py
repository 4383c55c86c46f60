"""Every open-preference review of a study labelled by one model, with one fixed prompt.

People list their review's aspects in the workspace and a simulator lists its own in its
answer; the two groups label differently. A coordinator may instead have one LLM endpoint
label every review, people's and simulators' alike, with `LABEL_PROMPT` (a resumable, cached
job through the one LLM client). The labels are stored beside the responder's own
(``AspectsPayload.labelled``, with the model as ``labeller``). The report measures aspects
from the labeller's labels only when one model has labelled every review of the study
(`study_labeller`); otherwise from each responder's own, and it says which.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction

from evalsite import jobs
from evalsite.jobs import JobContext
from evalsite.llm.answers import Message
from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.runs import run_with_llm, save_checkpoint
from evalsite.models import Job
from fidelity.content import Aspect, AspectsPayload, payload_json
from fidelity.job_descriptions import describe_labelling
from fidelity.models import Answer, Study
from fidelity.simulation import read_aspects
from fidelity.study_jobs import study_and_endpoint

LABEL_JOB = "fidelity_label_aspects"
LABEL_PROMPT_VERSION = "fidelity-aspects-v1"
LABEL_PROMPT = (
    "Here is a short review of a movie. List the aspects of the movie the review talks about "
    "(such as plot, acting, music, length), each once, in the review's own language, with the "
    "sentiment the review expresses about it: positive, negative or neutral. Do not add "
    'aspects the review does not mention. Answer with one JSON object: {"aspects": '
    '[{"aspect": "<aspect>", "sentiment": "positive|negative|neutral"}]}, with an empty list '
    "if the review names no aspect.\n\nReview: {review}"
)


def label_messages(review: str) -> list[Message]:
    """The one fixed prompt that labels a review, whoever wrote it."""
    return [{"role": "user", "content": LABEL_PROMPT.replace("{review}", review)}]


def _reviews(study: Study) -> list[tuple[Answer, AspectsPayload]]:
    found = []
    answers = Answer.objects.filter(prompt__study=study, prompt__task="open_pref")
    for answer in answers.select_related("prompt").order_by("id"):
        said = answer.said()
        if isinstance(said, AspectsPayload):
            found.append((answer, said))
    return found


def study_labeller(study: Study) -> str:
    """The model that labelled every open-preference review of the study, or "" when the
    reviews keep their responders' own labels (no labeller, or one that has not labelled all)."""
    labellers = {said.labeller for _, said in _reviews(study)}
    if len(labellers) != 1:
        return ""
    return labellers.pop()


def _label(answer: Answer, said: AspectsPayload, labels: tuple[Aspect, ...], model: str) -> None:
    answer.payload = payload_json(
        AspectsPayload(said.text, said.aspects, labelled=labels, labeller=model)
    )
    answer.save(update_fields=["payload"])


@jobs.job_kind(LABEL_JOB, describe=describe_labelling)
def label_aspects(context: JobContext) -> dict[str, Any]:
    """params: study (id), llm (the labelling endpoint's settings)."""
    study, config = study_and_endpoint(context)
    found = _reviews(study)
    todo = [(answer, said) for answer, said in found if said.labeller != config.model]
    counter = {"done": len(found) - len(todo), "failed": 0}
    context.progress(counter["done"], len(found), force=True)

    def store(answer: Answer, said: AspectsPayload, labels: Any, problem: str) -> None:
        with transaction.atomic():
            if labels is None:
                counter["failed"] += 1
                context.job.errors = [*context.job.errors, f"{answer.prompt.key}: {problem}"]
            else:
                _label(answer, said, labels, config.model)
                counter["done"] += 1
            save_checkpoint(context, counter["done"])

    async def work(llm: LLMClient, entry: tuple[Answer, AspectsPayload]) -> None:
        answer, said = entry
        labelled = await llm.complete_json(label_messages(said.text), read_aspects)
        await sync_to_async(store)(answer, said, labelled.value, labelled.error)

    usage = run_with_llm(context, config, todo, work)
    return {
        "labelled": counter["done"],
        "failed": counter["failed"],
        "model": config.model,
        "prompt_version": LABEL_PROMPT_VERSION,
        **usage.as_result(),
    }


def create_labelling_job(study: Study, llm: dict[str, Any], user: Any = None) -> Job:
    """A job that labels the study's reviews, not yet started; LLMConfigError if unusable."""
    LLMConfig.from_config({**llm, "cache": True})
    return jobs.create(LABEL_JOB, {"study": study.pk, "llm": llm}, user=user)
