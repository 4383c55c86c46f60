"""What a study's model jobs (embedding its requests, labelling its reviews) start from: the
study they work on and the endpoint they ask, or a `JobError` saying why there is none."""

from __future__ import annotations

from evalsite.jobs import JobContext, JobError
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMConfigError
from fidelity.models import Study


def study_and_endpoint(context: JobContext) -> tuple[Study, LLMConfig]:
    """params: study (id), llm (the endpoint's settings; its answers are cached)."""
    study = Study.objects.filter(pk=context.params["study"]).first()
    if study is None:
        raise JobError(f"there is no study {context.params['study']}")
    try:
        config = LLMConfig.from_config({**context.params["llm"], "cache": True})
    except LLMConfigError as error:
        raise JobError(str(error)) from None
    return study, config
