"""One model labels every open-preference review, people's and simulators', the same way."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client
from django.urls import reverse
from django.utils import translation

from evalsite import jobs
from evalsite.models import Job
from fidelity.aspect_labels import LABEL_PROMPT, create_labelling_job, study_labeller
from fidelity.content import Aspect, AspectsPayload, payload_json
from fidelity.models import Answer, Prompt, Simulator, Study
from fidelity.prompts import PromptCounts, make_prompts
from fidelity.report import study_report
from fidelity.sheets import csv_bytes
from tests.fake_openai import Answer as FakeAnswer
from tests.fake_openai import FakeOpenAI, fake_openai_server, reply  # noqa: F401

ONLY_OPEN = PromptCounts(items_talk=0, bin_pref=0, open_pref=2, rec_request=0, feedback_requests=0)


def labeller(body: dict[str, Any]) -> FakeAnswer:
    """Labels a review's plot and music, or its cast."""
    review = body["messages"][-1]["content"].split("Review: ", 1)[1]
    if "plot" in review:
        aspects = [
            {"aspect": "plot", "sentiment": "positive"},
            {"aspect": "music", "sentiment": "negative"},
        ]
    else:
        aspects = [{"aspect": "cast", "sentiment": "neutral"}]
    return reply(json.dumps({"aspects": aspects}))


def _review(prompt: Prompt, group: str, who: str, text: str, *aspects: Aspect) -> Answer:
    return Answer.objects.create(
        prompt=prompt,
        group=group,
        responder=who,
        source="people" if group == "people" else "simulator",
        payload=payload_json(AspectsPayload(text, aspects)),
    )


def _open_pref(study: Study) -> Any:
    return next(task for task in study_report(study, resamples=0) if task.task == "open_pref")


def test_one_model_labels_every_review_and_the_report_measures_its_labels(
    study: Study, fake_openai: FakeOpenAI, coordinator_client: Client
) -> None:
    make_prompts(study, ONLY_OPEN)
    first, second = study.prompts.order_by("position")
    Simulator.objects.create(study=study, label="sim", configuration="DI", llm={})
    _review(first, "people", "p1", "Great plot, dull music.", Aspect("plot", "positive"))
    _review(
        second,
        "sim",
        "open_pref-2",
        "Loved the cast.",
        Aspect("cast", "positive"),
        Aspect("tone", "neutral"),
    )
    people, sim = _open_pref(study).rows
    # Each responder's own labels: 1 aspect for the person, 2 for the simulator.
    assert (people.cell("n_aspects").value, sim.cell("n_aspects").value) == (1, 2)
    assert study_labeller(study) == "" and _open_pref(study).labeller == ""

    llm = {"base_url": fake_openai.base_url, "model": fake_openai.model, "concurrency": 1}
    fake_openai.script(labeller, labeller)
    job = jobs.run(create_labelling_job(study, llm))
    assert job.status == "done" and job.result["labelled"] == 2, job.errors
    # The one fixed prompt, whoever wrote the review.
    asked = sorted(body["messages"][-1]["content"] for body in fake_openai.requests)
    reviews = ("Great plot, dull music.", "Loved the cast.")
    assert asked == [LABEL_PROMPT.replace("{review}", review) for review in reviews]
    stored = Answer.objects.get(responder="p1").said()
    assert isinstance(stored, AspectsPayload)
    assert stored.aspects == (Aspect("plot", "positive"),)  # the person's own are kept
    assert stored.labelled == (Aspect("plot", "positive"), Aspect("music", "negative"))
    assert study_labeller(study) == fake_openai.model
    report = _open_pref(study)
    people, sim = report.rows
    # The labeller's labels: plot and music for the person, cast for the simulator.
    assert (people.cell("n_aspects").value, sim.cell("n_aspects").value) == (2, 1)
    assert report.labeller == fake_openai.model
    with translation.override("en"):
        page = coordinator_client.get(reverse("fidelity:report", args=[study.pk])).content
    assert f"Aspects labelled by {fake_openai.model}, with one fixed prompt" in page.decode()
    exported = csv_bytes(study_report(study, resamples=0)).decode()
    assert f"aspects labelled by {fake_openai.model} (one fixed prompt, every group)" in exported

    jobs.run(create_labelling_job(study, llm))
    assert len(fake_openai.requests) == 2  # every review labelled already: nothing asked

    # A review not labelled yet: the report goes back to each responder's own labels.
    _review(second, "people", "p2", "Slow.", Aspect("pace", "negative"))
    assert study_labeller(study) == ""
    people, sim = _open_pref(study).rows
    assert (people.cell("n_aspects").value, sim.cell("n_aspects").value) == (2, 2)
    with translation.override("en"):
        page = coordinator_client.get(reverse("fidelity:report", args=[study.pk])).content
    assert "Aspects labelled by each responder" in page.decode()


def test_the_labelling_form_starts_a_job_with_a_named_endpoint(
    coordinator_client: Client, study: Study, settings: Any
) -> None:
    settings.LLM_KEYS = "local:@http://127.0.0.1:9/v1"
    form = {"label-credential": "local", "label-model": "judge", "label-concurrency": 1}
    response = coordinator_client.post(reverse("fidelity:label_aspects", args=[study.pk]), form)
    assert response.status_code == 302
    job = Job.objects.get(kind="fidelity_label_aspects")
    assert response["Location"] == reverse("job_detail", args=[job.pk])
    assert job.params == {
        "study": study.pk,
        "llm": {"credential": "local", "model": "judge", "concurrency": 1},
    }
