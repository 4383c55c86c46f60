"""The study's recommendation requests embedded, for the report's embedding diversity.

A job embeds every request (people's and simulators') with one endpoint's embeddings model,
through the one LLM client (recorded and cached), and stores each vector in its answer with
the model's name. A request already embedded by that model is skipped, so the job resumes. The
report measures a group's embedding diversity when every one of its requests has a vector from
the same model.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from evalsite import jobs
from evalsite.fidelity.embeddings import BATCH, EndpointEmbedder
from evalsite.jobs import JobContext, JobError
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMError
from evalsite.models import Job
from fidelity.content import TextPayload, payload_json
from fidelity.job_descriptions import describe_embedding
from fidelity.models import Answer, Study
from fidelity.study_jobs import study_and_endpoint

EMBED_JOB = "fidelity_embed"


def _requests(study: Study) -> list[tuple[Answer, TextPayload]]:
    found = []
    for answer in Answer.objects.filter(prompt__study=study, prompt__task="rec_request"):
        said = answer.said()
        if isinstance(said, TextPayload):
            found.append((answer, said))
    return found


@jobs.job_kind(EMBED_JOB, describe=describe_embedding)
def embed_requests(context: JobContext) -> dict[str, Any]:
    """params: study (id), llm (endpoint settings of an embeddings model)."""
    study, config = study_and_endpoint(context)
    found = _requests(study)
    todo = [(a, said) for a, said in found if said.embedding_model != config.model]
    done = len(found) - len(todo)
    context.progress(done, len(found), force=True)
    embed = EndpointEmbedder(config)
    for start in range(0, len(todo), BATCH):
        batch = todo[start : start + BATCH]
        try:
            vectors = embed([said.text for _, said in batch])
        except LLMError as error:
            raise JobError(str(error)) from None
        with transaction.atomic():
            for (answer, said), vector in zip(batch, vectors, strict=True):
                stored = TextPayload(said.text, "text", tuple(vector), config.model)
                answer.payload = payload_json(stored)
                answer.save(update_fields=["payload"])
        done += len(batch)
        context.progress(done, len(found), force=True)
    return {"embedded": done, "model": config.model}


def create_embedding_job(study: Study, llm: dict[str, Any], user: Any = None) -> Job:
    """A job that embeds the study's requests, not yet started; LLMConfigError if unusable."""
    LLMConfig.from_config({**llm, "cache": True})
    return jobs.create(EMBED_JOB, {"study": study.pk, "llm": llm}, user=user)
