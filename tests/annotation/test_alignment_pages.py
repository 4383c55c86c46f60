"""Judge alignment in the app: versions, the split, the pages, who sees what, the exports."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import openpyxl
import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.alignment.stored_split import ensure_split, held_out_ids
from annotation.alignment.versions import few_shot_examples
from annotation.llm_evaluator.job import create_scoring_job
from annotation.models import (
    Adjudication,
    AdjudicationReason,
    Assignment,
    Campaign,
    EvaluatorVersion,
    LLMScore,
    Response,
    SplitItem,
)
from evalsite import jobs
from evalsite.models import Job
from tests.annotation.conftest import dialogue, person
from tests.fake_openai import (
    Answer,
    FakeOpenAI,
    fake_openai_server,  # noqa: F401
    reply,
)

pytestmark = pytest.mark.django_db

ITEMS = 40
DIMENSIONS = ("relevance", "overall")
RATIONALE = "LLM-RATIONALE-MARKER"


def films(count: int) -> list[dict[str, Any]]:
    return [
        dialogue(
            f"t{n:03d}",
            turns=[
                {"role": "user", "text": "Any comedies?"},
                {"role": "system", "text": f"Try Film {n} (1980)."},
                {"role": "user", "text": "Sure. [END]"},
            ],
        )
        for n in range(count)
    ]


def answer_all(campaign: Campaign, truth: np.ndarray, seed: int = 3) -> None:
    """Three annotators score every item on two dimensions, near ``truth``."""
    rng = np.random.default_rng(seed)
    dimensions = [campaign.rubric.dimensions.get(key=key) for key in DIMENSIONS]
    now = timezone.now()
    for name in ("ann", "bo", "cy"):
        user = person(name, "annotators")
        for index, transcript in enumerate(campaign.transcripts.order_by("position")):
            assignment = Assignment.objects.create(
                campaign=campaign,
                transcript=transcript,
                annotator=user,
                status=Assignment.Status.SUBMITTED,
                submitted_at=now,
            )
            for dimension in dimensions:
                value = int(np.clip(truth[index] + rng.choice([-1, 0, 0, 0, 1]), 1, 5))
                Response.objects.create(
                    assignment=assignment, transcript=transcript, dimension=dimension, value=value
                )


def llm_scores(campaign: Campaign, evaluator: str, scores: np.ndarray) -> None:
    for index, transcript in enumerate(campaign.transcripts.order_by("position")):
        for key in DIMENSIONS:
            LLMScore.objects.create(
                transcript=transcript,
                dimension=campaign.rubric.dimensions.get(key=key),
                evaluator=evaluator,
                score=float(scores[index]),
                rationale=RATIONALE,
            )


@pytest.fixture
def aligned(campaign_factory: Callable[..., Campaign]) -> Campaign:
    campaign = campaign_factory(rows=films(ITEMS))
    truth = np.random.default_rng(5).integers(1, 6, ITEMS).astype(float)
    answer_all(campaign, truth)
    llm_scores(campaign, "biased@v1", np.clip(truth + 1, 1, 5))
    llm_scores(campaign, "random@v1", np.random.default_rng(9).integers(1, 6, ITEMS))
    return campaign


def client_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


# The split and versions ---------------------------------------------------------------------


def test_the_split_is_stored_once_and_never_moves(
    campaign_factory: Callable[..., Campaign],
) -> None:
    campaign = campaign_factory(rows=films(20))
    first = held_out_ids(campaign)
    assert len(first) == 10 and SplitItem.objects.count() == 20
    SplitItem.objects.filter(transcript__external_id="t000").update(held_out=True)
    changed = held_out_ids(campaign)
    assert changed >= first  # nothing is redrawn
    ensure_split(campaign)
    assert SplitItem.objects.count() == 20


def verdicts(body: dict[str, Any]) -> Answer:
    prompt = body["messages"][1]["content"]
    keys = re.findall(r'"([a-z_]+)": \{"rationale"', prompt)
    return reply(json.dumps({key: {"rationale": "Why.", "score": 1} for key in keys}))


def test_a_run_is_recorded_as_a_version_and_held_out_items_never_reach_its_examples(
    aligned: Campaign, fake_openai: FakeOpenAI
) -> None:
    held_out = held_out_ids(aligned)
    held_films = {
        transcript.turns[1]["text"] for transcript in aligned.transcripts.filter(pk__in=held_out)
    }
    fake_openai.script(*[verdicts] * ITEMS)
    settings = {"base_url": fake_openai.base_url, "model": fake_openai.model, "concurrency": 1}
    job = jobs.run(
        create_scoring_job(
            aligned, {**settings, "temperature": 0.3, "seed": 7}, label="fewshot", few_shot=5
        )
    )
    assert job.status == Job.Status.DONE, job.errors
    version = EvaluatorVersion.objects.get(campaign=aligned)
    assert (version.name, version.model) == (
        f"fewshot:{fake_openai.model}@concept-v1",
        "fake-model",
    )
    assert (version.temperature, version.seed) == (0.3, 7)
    assert "You are an expert evaluator" in version.prompt_template
    shown = [example["transcript"] for example in version.few_shot]
    assert len(shown) == 5 and not set(shown) & held_out
    assert len(fake_openai.requests) == ITEMS
    for body in fake_openai.requests:
        assert (body["temperature"], body["seed"]) == (0.3, 7)
        prompt = body["messages"][1]["content"]
        examples = prompt[: prompt.rindex("## Conversation")]
        assert examples.count("### Example") == 0 and examples.count("## Example") == 5
        assert not [film for film in held_films if film in examples]
    # Every calibration example carries the people's consensus, never an LLM score.
    assert all(set(example["scores"]) == set(DIMENSIONS) for example in version.few_shot)


def test_few_shot_examples_prefer_adjudicated_scores(aligned: Campaign, boss: User) -> None:
    (example,) = few_shot_examples(aligned, 1)
    dimension = aligned.rubric.dimensions.get(key="relevance")
    Adjudication.objects.create(
        transcript=example.transcript,
        dimension=dimension,
        score=1,
        reason=AdjudicationReason.objects.get(label_en="rubric unclear"),
        adjudicator=boss,
    )
    (again,) = few_shot_examples(aligned, 1)
    assert again.transcript == example.transcript and again.scores["relevance"] == 1


def test_a_name_already_used_with_other_settings_is_refused(
    aligned: Campaign, fake_openai: FakeOpenAI
) -> None:
    settings = {"base_url": fake_openai.base_url, "model": fake_openai.model}
    create_scoring_job(aligned, settings)
    create_scoring_job(aligned, settings)  # the same setup again is the same version
    with pytest.raises(ValueError, match="already names a version with another temperature"):
        create_scoring_job(aligned, {**settings, "temperature": 1.0})
    assert EvaluatorVersion.objects.count() == 1


# Pages and who reaches them -----------------------------------------------------------------


@pytest.fixture
def boss(db: None) -> User:
    return person("boss", "coordinators")


@pytest.fixture
def referee(aligned: Campaign) -> User:
    user = person("referee", "annotators")
    ensure_split(aligned).adjudicators.add(user)
    return user


def test_the_alignment_page_compares_versions_and_says_whether_one_can_replace_people(
    aligned: Campaign, boss: User
) -> None:
    response = client_for(boss).get(reverse("annotation_alignment:page", args=[aligned.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Can this evaluator replace people?" in html
    assert "biased@v1" in html and "random@v1" in html
    assert "Best version on the calibration split: <strong>biased@v1</strong>" in html
    assert html.count('class="version-row"') == 2 * len(DIMENSIONS)
    assert "near-constant map" in html  # the random version's map collapses
    # ...and its calibrated scores, near one point, spread far less than a person's.
    assert 'class="warning spread-shrunk"' in html
    # Exact and within-one agreement stand beside their chance levels.
    assert html.count('class="muted chance"') >= 2 * len(DIMENSIONS)
    assert "uniform on the scale;" in html and "from the observed answers" in html
    report = client_for(boss).get(reverse("annotation_report:page", args=[aligned.pk]))
    assert reverse("annotation_alignment:page", args=[aligned.pk]) in report.content.decode()


def test_only_coordinators_reach_the_comparison_and_the_exports(
    aligned: Campaign, boss: User, referee: User
) -> None:
    urls = [
        reverse("annotation_alignment:page", args=[aligned.pk]),
        reverse("annotation_alignment:workbook", args=[aligned.pk]),
        reverse("annotation_alignment:csv", args=[aligned.pk, "versions"]),
    ]
    judge = person("judge", "judges")
    plain = person("plain", "annotators")
    for url in urls:
        assert client_for(boss).get(url).status_code == 200
        for user in (referee, plain, judge):
            assert client_for(user).get(url).status_code == 403
        assert client_for(None).get(url).status_code == 302
    post = reverse("annotation_alignment:adjudicators", args=[aligned.pk])
    assert client_for(referee).post(post, {"adjudicators": [plain.pk]}).status_code == 403
    assert client_for(boss).post(post, {"adjudicators": [plain.pk]}).status_code == 302
    assert list(ensure_split(aligned).adjudicators.all()) == [plain]


def test_only_coordinators_and_designated_adjudicators_reach_the_queue(
    aligned: Campaign, boss: User, referee: User
) -> None:
    transcript = aligned.transcripts.first()
    assert transcript is not None
    urls = [
        reverse("annotation_alignment:queue", args=[aligned.pk]),
        reverse("annotation_alignment:adjudicate", args=[aligned.pk, transcript.pk, "relevance"]),
    ]
    plain = person("plain", "annotators")
    judge = person("judge", "judges")
    for url in urls:
        for user in (boss, referee):
            response = client_for(user).get(url)
            assert response.status_code == 200 and "biased@v1" in response.content.decode()
        for user in (plain, judge):
            response = client_for(user).get(url)
            assert response.status_code == 403 and "biased@v1" not in response.content.decode()
        assert client_for(None).get(url).status_code == 302
    home = reverse("home")
    assert urls[0] in client_for(referee).get(home).content.decode()
    assert urls[0] not in client_for(plain).get(home).content.decode()
    page = client_for(referee).get(urls[1]).content.decode()
    assert RATIONALE in page and 'id="people-scores"' in page


def test_the_queue_lists_the_largest_gaps_with_the_humans_spread(
    aligned: Campaign, referee: User
) -> None:
    url = reverse("annotation_alignment:queue", args=[aligned.pk])
    html = client_for(referee).get(url, {"version": "random@v1"}).content.decode()
    assert 'id="queue-overall"' in html and html.count("queue-dimension") == len(DIMENSIONS)
    first_gap = re.search(r"<td>(-?\d+)</td><td>[\d, .]+ \(\d+\)</td>", html)
    assert first_gap is not None and abs(int(first_gap.group(1))) >= 3


def test_an_adjudicator_records_a_resolved_score_with_a_reason(
    aligned: Campaign, referee: User
) -> None:
    transcript = aligned.transcripts.first()
    assert transcript is not None
    url = reverse("annotation_alignment:adjudicate", args=[aligned.pk, transcript.pk, "relevance"])
    reason = AdjudicationReason.objects.get(label_en="LLM misread")
    bad = client_for(referee).post(url, {"score": 9, "reason": reason.pk})
    assert bad.status_code == 400 and not Adjudication.objects.exists()
    good = client_for(referee).post(url, {"score": 2, "reason": reason.pk, "note": "=1+1"})
    assert good.status_code == 302
    decision = Adjudication.objects.get()
    assert (decision.score, decision.reason, decision.adjudicator) == (2, reason, referee)
    assert {r.label_en for r in AdjudicationReason.objects.all()} >= {
        "rubric unclear",
        "LLM misread",
        "humans split",
    }


def test_annotators_never_see_llm_scores_even_where_adjudications_exist(
    aligned: Campaign, referee: User, boss: User
) -> None:
    transcript = aligned.transcripts.first()
    assert transcript is not None
    Adjudication.objects.create(
        transcript=transcript,
        dimension=aligned.rubric.dimensions.get(key="relevance"),
        score=2,
        reason=AdjudicationReason.objects.get(label_en="rubric unclear"),
        adjudicator=boss,
    )
    fresh = person("fresh", "annotators")
    client = client_for(fresh)
    work = client.get(reverse("annotation:work", args=[aligned.pk]))
    pages = [client.get(reverse("home")), client.get(work["Location"])]
    for page in pages:
        html = page.content.decode()
        assert page.status_code == 200
        assert RATIONALE not in html and "biased@v1" not in html


# Exports ------------------------------------------------------------------------------------


def test_the_exports_hold_versions_adjudications_maps_and_held_out_figures(
    aligned: Campaign, boss: User, referee: User
) -> None:
    transcript = aligned.transcripts.first()
    assert transcript is not None
    Adjudication.objects.create(
        transcript=transcript,
        dimension=aligned.rubric.dimensions.get(key="relevance"),
        score=2,
        reason=AdjudicationReason.objects.get(label_en="humans split"),
        note="=HYPERLINK(1)",
        adjudicator=referee,
    )
    client = client_for(boss)

    def table(slug: str) -> list[list[str]]:
        response = client.get(reverse("annotation_alignment:csv", args=[aligned.pk, slug]))
        return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))

    adjudications = table("adjudications")
    assert adjudications[1][:4] == [transcript.external_id, "relevance", "2", "humans split"]
    assert adjudications[1][4] == "'=HYPERLINK(1)"  # a formula stays text
    calibration = table("calibration")
    assert len(calibration) == 1 + 2 * len(DIMENSIONS) * 5  # a row per scale point
    held_out = table("held-out")
    header = held_out[0]
    rows = [dict(zip(header, row, strict=True)) for row in held_out[1:]]
    biased_raw = next(r for r in rows if r["version"] == "biased@v1" and r["scores"] == "raw")
    biased_calibrated = next(
        r for r in rows if r["version"] == "biased@v1" and r["scores"] == "calibrated"
    )
    assert float(biased_calibrated["mae"]) < float(biased_raw["mae"])
    assert biased_raw["best_on_calibration_split"] == "True"
    # The same people on the same items, whichever scores are set beside them.
    assert biased_raw["people_sd"] == biased_calibrated["people_sd"]
    assert float(biased_raw["people_sd"]) > 0 and float(biased_raw["scores_sd"]) > 0
    workbook = openpyxl.load_workbook(
        io.BytesIO(client.get(reverse("annotation_alignment:workbook", args=[aligned.pk])).content)
    )
    assert workbook.sheetnames == [
        "About",
        "Versions",
        "Adjudications",
        "Calibration maps",
        "Confusion matrices",
        "Held-out figures",
    ]
    assert workbook["Adjudications"]["E2"].data_type == "s"
