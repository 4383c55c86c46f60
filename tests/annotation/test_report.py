"""The agreement report: its numbers, its cache, its page and who may see it."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Mapping
from html import unescape
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone, translation

from annotation.models import Assignment, Campaign, LLMScore, Response, Transcript
from annotation.report import cache, compute, dimensions, items
from annotation.report import verdict as report_verdict
from annotation.report import workbook as exports
from annotation.report.figures import LONGEST_LABEL, alpha_colour, heatmap_figure
from annotation.report.page import chance_text
from evalsite import jobs, roles
from evalsite.charts import ON_DARK, ON_LIGHT, contrast, on_fill, text_width
from evalsite.models import Job
from tests.annotation.conftest import dialogue, pairwise, person

pytestmark = pytest.mark.django_db

RESAMPLES = 20


def answer(
    user: User, transcript: Transcript, values: Mapping[str, int], rationale: str = ""
) -> None:
    """A submitted annotation of ``transcript`` by ``user``."""
    assignment = Assignment.objects.create(
        campaign=transcript.campaign,
        transcript=transcript,
        annotator=user,
        status=Assignment.Status.SUBMITTED,
        submitted_at=timezone.now(),
    )
    dimensions = {d.key: d for d in transcript.campaign.rubric.dimensions.all()}
    Response.objects.bulk_create(
        Response(
            assignment=assignment,
            transcript=transcript,
            dimension=dimensions[key],
            value=value,
            rationale=rationale,
        )
        for key, value in values.items()
    )


def machine(
    transcript: Transcript, evaluator: str, values: Mapping[str, float], rationale: str = ""
) -> None:
    dimensions = {d.key: d for d in transcript.campaign.rubric.dimensions.all()}
    LLMScore.objects.bulk_create(
        LLMScore(
            transcript=transcript,
            dimension=dimensions[key],
            evaluator=evaluator,
            score=value,
            rationale=rationale,
        )
        for key, value in values.items()
    )


def client_of(username: str, role: str) -> Client:
    """A logged-in client of a user without a usable password: hashing one is slow."""
    client = Client()
    client.force_login(person(username, role))
    return client


@pytest.fixture
def coordinator_client(db: None) -> Client:
    return client_of("cora", roles.COORDINATORS)


def persona(emotion: str, age_group: str) -> dict[str, str]:
    return {"emotion": emotion, "age_group": age_group, "text": "Someone."}


# Per item: x's, y's and gpt's scores on quality, manner and acceptance_follows_preferences.
SMALL_SCORES: dict[str, tuple[dict[str, int], dict[str, int], dict[str, float]]] = {
    "t1": (
        {"quality": 3, "manner": 4, "acceptance_follows_preferences": 1},
        {"quality": 3, "manner": 4, "acceptance_follows_preferences": 1},
        {"quality": 3, "manner": 4, "acceptance_follows_preferences": 1},
    ),
    "t2": (
        {"quality": 3, "manner": 2, "acceptance_follows_preferences": 0},
        {"quality": 4, "manner": 3, "acceptance_follows_preferences": 0},
        {"quality": 4, "manner": 2, "acceptance_follows_preferences": 0},
    ),
    "t3": (
        {"quality": 2, "manner": 5, "acceptance_follows_preferences": 1},
        {"quality": 2, "manner": 5, "acceptance_follows_preferences": 0},
        {"quality": 2, "manner": 3, "acceptance_follows_preferences": 1},
    ),
    "t4": (
        {"quality": 5, "manner": 1},
        {"quality": 5, "manner": 2},
        {"quality": 4, "manner": 1},
    ),
}


def build_small(make: Callable[..., Campaign]) -> Campaign:
    """Four dialogues on two systems and three pairwise items, scored by x, y (z on p1 only)
    and the LLM evaluator gpt; the expected figures in the tests are worked out by hand."""
    campaign = make(
        name="Small",
        rows=[
            dialogue("t1", system="kbrd", persona=persona("Curiosity", "Adults")),
            dialogue("t2", system="kbrd", persona=persona("Trust", "Teens")),
            dialogue("t3", system="unicrs", persona=persona("Curiosity", "Teens")),
            dialogue("t4", system="unicrs", persona=persona("Trust", "Adults")),
            pairwise("p1"),
            pairwise("p2"),
            pairwise("p3"),
        ],
    )
    items = {t.external_id: t for t in campaign.transcripts.all()}
    x, y, z = (person(name, "annotators") for name in "xyz")
    for item, (by_x, by_y, by_gpt) in SMALL_SCORES.items():
        answer(x, items[item], by_x)
        answer(y, items[item], by_y)
        machine(items[item], "gpt", by_gpt, rationale=f"gpt on {item}")
    # better_response: 0 prefers A, 1 prefers B.
    for item, votes, choice in (("p1", (0, 0, 1), 0), ("p2", (1, 1), 0), ("p3", (0, 1), 1)):
        for annotator, vote in zip((x, y, z), votes, strict=False):
            answer(annotator, items[item], {"better_response": vote})
        machine(items[item], "gpt", {"better_response": choice})
    return campaign


@pytest.fixture
def small(campaign_factory: Callable[..., Campaign]) -> Campaign:
    return build_small(campaign_factory)


@pytest.fixture
def small_result(small: Campaign) -> dict[str, Any]:
    return compute.compute_report(small, resamples=RESAMPLES)


def build_large(make: Callable[..., Campaign], items: int = 240) -> Campaign:
    """``items`` dialogues over three systems, each scored on manner and quality by three
    people and by gpt, who mostly follows the people."""
    systems = ("kbrd", "unicrs", "chatgpt")
    campaign = make(
        name="Large",
        rows=[
            dialogue(f"d{n:03d}", system=systems[n % 3], persona=persona("Joy", "Adults"))
            for n in range(items)
        ],
    )
    rng = np.random.default_rng(7)
    transcripts = list(campaign.transcripts.order_by("position"))
    dimensions = {d.key: d for d in campaign.rubric.dimensions.all()}
    people = [person(name, "annotators") for name in ("u1", "u2", "u3")]
    assignments = Assignment.objects.bulk_create(
        Assignment(
            campaign=campaign,
            transcript=transcript,
            annotator=annotator,
            status=Assignment.Status.SUBMITTED,
        )
        for transcript in transcripts
        for annotator in people
    )
    truth = rng.integers(1, 6, size=(len(transcripts), 2))
    responses = []
    scores = []
    for index, transcript in enumerate(transcripts):
        for column, key in enumerate(("manner", "quality")):
            for offset in range(3):
                value = int(np.clip(truth[index, column] + rng.integers(-1, 2), 1, 5))
                responses.append(
                    Response(
                        assignment=assignments[index * 3 + offset],
                        transcript=transcript,
                        dimension=dimensions[key],
                        value=value,
                    )
                )
            guess = float(np.clip(truth[index, column] + rng.choice([0, 0, 1, -1]), 1, 5))
            scores.append(
                LLMScore(
                    transcript=transcript, dimension=dimensions[key], evaluator="gpt", score=guess
                )
            )
    Response.objects.bulk_create(responses)
    LLMScore.objects.bulk_create(scores)
    return campaign


# The numbers ----------------------------------------------------------------------------------


def test_it_reports_binary_agreement_at_the_nominal_level_with_hand_worked_alpha(
    small_result: dict[str, Any],
) -> None:
    block = small_result["evaluations"][0]["dimensions"]["acceptance_follows_preferences"]
    # Humans: (1,1), (0,0), (1,0): n = 6, one disagreeing pair each way, expected 2·3·3 = 18,
    # α = 1 − 5·2/18 = 4/9. With gpt: (1,1,1), (0,0,0), (1,0,1): α = 1 − 8·2/(2·5·4) = 0.6.
    assert block["level"] == "nominal"
    assert block["alpha"]["humans"] == pytest.approx(4 / 9)
    assert block["alpha"]["humans_plus_llm"] == pytest.approx(0.6)
    # Human means 1, 0, 0.5 against gpt's 1, 0, 1.
    assert block["mae"] == pytest.approx(1 / 6)
    assert block["n"] == {
        "items": 3,
        "alpha_humans": 3,
        "alpha_humans_plus_llm": 3,
        "paired": 3,
    }


def test_it_correlates_the_llm_with_the_human_mean(small_result: dict[str, Any]) -> None:
    block = small_result["evaluations"][0]["dimensions"]["manner"]
    # Human means 4, 2.5, 5, 1.5 against gpt's 4, 2, 3, 1: Σ products of deviations 5,
    # sums of squares 7.25 and 5; ranks 3,2,4,1 against 4,2,3,1; five concordant pairs of six.
    assert block["level"] == "ordinal"
    assert block["pearson"]["r"] == pytest.approx(5 / math.sqrt(7.25 * 5))
    assert block["spearman"]["rho"] == pytest.approx(0.8)
    assert block["kendall"]["tau"] == pytest.approx(4 / 6)
    assert block["mae"] == pytest.approx(0.75)
    assert block["exact_agreement"] == pytest.approx(0.5)
    # Four items are too few for a bootstrap interval, and the notes say so.
    assert block["pearson"]["ci"] is None
    assert any("at least 10" in note for note in block["notes"])


def test_each_agreement_rate_has_its_chance_levels(small_result: dict[str, Any]) -> None:
    manner = small_result["evaluations"][0]["dimensions"]["manner"]
    # 8 (gpt, person) pairs. gpt's shares 4, 2, 3, 1: 2/8 each; the people's (4 4 2 3 5 5 1 2)
    # 1 1/8, 2 2/8, 3 1/8, 4 2/8, 5 2/8. Exact: 2·(2 + 2 + 1 + 1)/64. Within one: 4 meets
    # 3, 4, 5 (5), 2 meets 1, 2, 3 (4), 3 meets 2, 3, 4 (5), 1 meets 1, 2 (3): 2·17/64.
    assert manner["chance"]["exact_agreement"]["marginals"] == pytest.approx(12 / 64)
    assert manner["chance"]["within_one"]["marginals"] == pytest.approx(34 / 64)
    assert manner["within_one"] == pytest.approx(6 / 8)  # 3 against 5 is two apart, twice
    assert manner["chance"]["scale_points"] == 5
    assert manner["chance"]["within_one"]["uniform"] == pytest.approx(13 / 25)
    acceptance = small_result["evaluations"][0]["dimensions"]["acceptance_follows_preferences"]
    # gpt 1, 0, 1 against people's 1 1 / 0 0 / 1 0: 4/6 · 3/6 + 2/6 · 3/6.
    assert acceptance["chance"]["exact_agreement"] == {"uniform": 0.5, "marginals": 0.5}
    assert acceptance["within_one"] is None
    assert acceptance["chance"]["within_one"] == {"uniform": None, "marginals": None}


def test_the_chance_levels_read_in_both_languages() -> None:
    with translation.override("en"):
        assert (
            chance_text(0.2, 0.1875) == "0.20 uniform on the scale; 0.19 from the observed answers"
        )
    with translation.override("zh-hans"):
        assert chance_text(0.2, 0.1875) == "量表上均匀随机为 0.20；按观察到的答案分布为 0.19"
        assert chance_text(None, None) == "—"


def test_it_breaks_each_dimension_down_by_system_and_persona(
    small_result: dict[str, Any],
) -> None:
    block = small_result["evaluations"][0]["dimensions"]["manner"]
    assert small_result["breakdowns"] == ["system", "persona_emotion", "persona_age_group"]
    assert set(block["by"]["system"]) == {"kbrd", "unicrs"}
    assert block["by"]["system"]["kbrd"]["n"]["items"] == 2
    assert set(block["by"]["persona_emotion"]) == {"Curiosity", "Trust"}
    assert set(block["by"]["persona_age_group"]) == {"Adults", "Teens"}
    # Within kbrd, gpt's manner (4, 2) against the human means (4, 2.5): MAE 0.25.
    assert block["by"]["system"]["kbrd"]["mae"] == pytest.approx(0.25)


def test_it_pools_the_dimensions_that_share_a_level_and_scale(
    small_result: dict[str, Any],
) -> None:
    assert small_result["pooled_dimensions"] == ["quality", "manner"]
    assert small_result["verdict_dimension"] == dimensions.POOLED
    pooled = small_result["evaluations"][0]["pooled"]
    assert pooled["n"]["items"] == 8
    assert pooled["level"] == "ordinal"


def test_it_summarises_pairwise_questions_separately(small_result: dict[str, Any]) -> None:
    evaluation = small_result["evaluations"][0]
    assert "better_response" not in evaluation["dimensions"]
    block = evaluation["pairwise"]["better_response"]
    # Human votes: A, A, B | B, B | A, B.
    assert block["n_items"] == 3
    assert block["n_judgements"] == 7
    assert block["share_a"] == pytest.approx(3 / 7)
    assert block["share_b"] == pytest.approx(4 / 7)
    # gpt picks A, A, B; p1's majority is A (agrees), p2's is B (disagrees), p3 has none.
    assert block["llm_share_a"] == pytest.approx(2 / 3)
    assert block["n_majority_items"] == 2
    assert block["llm_majority_agreement"] == pytest.approx(0.5)
    # One match in two against chance 0.5, one-sided: P(X ≥ 1) = 1 − ½² = 0.75.
    assert block["llm_majority_p"] == pytest.approx(0.75)
    # The question gets the one rule too: three items give no interval, so no pass.
    assert block["verdict"]["stands_in"] is False
    assert [check["name"] for check in block["verdict"]["checks"]] == [
        "alt_test",
        "alpha_above_zero",
        "alpha_not_below_people",
        "answers_vary",
    ]


def test_it_lists_the_largest_disagreements_first_relative_to_the_scale(
    small: Campaign, small_result: dict[str, Any]
) -> None:
    rows = small_result["evaluations"][0]["disagreements"]
    first, second = rows[0], rows[1]
    # Both are half the scale: manner t3 (3 against 5 on 1–5), acceptance t3 (1 against 0.5).
    assert (first["dimension"], first["item"], first["difference"]) == ("manner", "t3", -2.0)
    assert (second["dimension"], second["item"]) == ("acceptance_follows_preferences", "t3")
    assert first["relative_gap"] == second["relative_gap"] == pytest.approx(0.5)
    assert first["humans"] == [5.0, 5.0]
    assert first["transcript"] == small.transcripts.get(external_id="t3").pk


def test_it_counts_the_scores_at_each_scale_point(small_result: dict[str, Any]) -> None:
    manner = small_result["histograms"]["manner"]
    assert manner["values"] == [1, 2, 3, 4, 5]
    assert manner["human"] == [1, 2, 1, 2, 2]
    assert manner["llm"] == {"gpt": [1, 1, 1, 1, 0]}


def test_it_puts_an_llm_score_between_points_at_the_nearest_point(
    small: Campaign,
) -> None:
    LLMScore.objects.filter(
        transcript__external_id="t1", dimension__key="manner", evaluator="gpt"
    ).update(score=2.5)
    result = compute.compute_report(small, resamples=0)
    # gpt's manner is now 2.5 (counted at 3), 2, 3 and 1.
    assert result["histograms"]["manner"]["llm"]["gpt"] == [1, 1, 2, 0, 0]


def test_it_keeps_an_evaluator_apart_from_a_person_of_the_same_name(
    small: Campaign,
) -> None:
    person("gpt", "annotators")
    t4 = small.transcripts.get(external_id="t4")
    answer(User.objects.get(username="gpt"), t4, {"manner": 1})
    result = compute.compute_report(small, resamples=0)
    block = result["evaluations"][0]["dimensions"]["manner"]
    assert result["evaluators"] == ["gpt"]
    assert block["llm"] == "gpt"
    # t4 now has three human scores (1, 2, 1) and gpt's 1.
    assert block["n"]["alpha_humans"] == 4
    assert block["mae"] == pytest.approx((0 + 0.5 + 2 + 1 / 3) / 4)


def test_without_an_llm_it_reports_agreement_among_people(
    campaign_factory: Callable[..., Campaign],
) -> None:
    campaign = campaign_factory(name="People only", rows=[dialogue("a"), dialogue("b")])
    a, b = campaign.transcripts.order_by("position")
    x, y = person("x", "annotators"), person("y", "annotators")
    for transcript, values in ((a, (1, 1)), (b, (0, 0))):
        answer(x, transcript, {"acceptance_follows_preferences": values[0]})
        answer(y, transcript, {"acceptance_follows_preferences": values[1]})
    result = compute.compute_report(campaign, resamples=0)
    evaluation = result["evaluations"][0]
    assert evaluation["evaluator"] is None
    assert evaluation["dimensions"]["acceptance_follows_preferences"]["alpha"]["humans"] == 1.0
    assert report_verdict.verdict(result, evaluation) == (
        "No LLM evaluator has scored this campaign; people agree among themselves at "
        "α = 1.00, on acceptance_follows_preferences."
    )


def test_the_verdict_states_the_alt_test_and_alpha_llm_human_beside_human_human() -> None:
    block = {
        "alpha": {
            "humans": 0.6,
            "humans_plus_llm": 0.931,
            "llm_vs_humans": 0.712,
            "humans_pairwise": 0.781,
        },
        "alpha_ci": {
            "humans": [0.55, 0.66],
            "humans_plus_llm": [0.874, 0.98],
            "llm_vs_humans": [0.651, 0.77],
            "humans_pairwise": [0.702, 0.85],
        },
        "alt_test": {
            "epsilon": 0.2,
            "q": 0.05,
            "scoring": "neg_rmse",
            "winning_rate": 2 / 3,
            "advantage_probability": 0.81,
            "passed": True,
            "humans": [
                {"rater": name, "n_items": 40, "p_value": p, "p_adjusted": p, "rejected": p < 0.05}
                for name, p in (("u1", 0.001), ("u2", 0.01), ("u3", 0.4))
            ],
        },
        "llm": "gpt-4o",
        "alpha_gap_ci": [-0.15, 0.02],
        "llm_distinct_answers": 5,
    }
    result = {
        "verdict_dimension": dimensions.POOLED,
        "pooled_dimensions": ["a", "b", "c"],
        "dimensions": [{"key": key, "name_en": key, "name_zh": key} for key in "abc"],
    }
    by_key: dict[str, dict[str, Any]] = {key: block for key in "abc"}
    evaluation = {"evaluator": "gpt-4o", "pooled": block, "dimensions": by_key}
    # Never from α with the LLM as one more rater (0.93).
    assert report_verdict.verdict(result, evaluation) == (
        "The LLM evaluator gpt-4o agrees with people well enough to stand in for a human "
        "annotator over 3 dimensions pooled: it passes all four checks of the rule. In the "
        "alternative annotator test (ε = 0.2) it beat 2 of 3 annotators, a winning rate of "
        "0.67 ≥ 0.5; its α with people is above 0 (lower bound 0.65); it is not significantly "
        "below α between people (the interval of the difference reaches 0.02); and its answers "
        "vary (5 distinct answers). Its α with each human averages 0.71 [0.65, 0.77], against "
        "0.78 [0.70, 0.85] between humans."
    )
    # One dimension that answers one value keeps the headline from saying "stands in".
    by_key["c"] = {**block, "llm_distinct_answers": 1}
    assert report_verdict.verdict(result, evaluation).startswith(
        "The LLM evaluator gpt-4o cannot stand in for a human annotator over this campaign: it "
        "passes the rule over 3 dimensions pooled, but fails it on its own on c (see below)."
    )
    assert report_verdict.failing_sentences(result, evaluation) == [
        "c: The LLM cannot stand in for people: it gives the same answer to every item."
    ]


def test_the_verdict_says_why_the_llm_cannot_be_tested() -> None:
    block = {
        "alpha": {"humans": None, "humans_plus_llm": 0.4, "llm_vs_humans": None},
        "alt_test": None,
        "notes": [
            "alpha.humans is null: only one rater.",
            "alt_test is null: the alt-test needs at least two human annotators, and 1 "
            "scored here.",
        ],
    }
    result = {"verdict_dimension": "manner", "pooled_dimensions": []}
    evaluation = {"evaluator": "gpt", "pooled": None, "dimensions": {"manner": block}}
    assert report_verdict.verdict(result, evaluation) == (
        "Whether the LLM evaluator gpt can stand in for a human annotator cannot be tested on "
        "manner: the alt-test needs at least two human annotators, and 1 "
        "scored here."
    )


def test_a_few_hundred_items_compute_with_intervals(
    campaign_factory: Callable[..., Campaign],
) -> None:
    campaign = build_large(campaign_factory)
    result = compute.compute_report(campaign, resamples=100)
    block = result["evaluations"][0]["pooled"]
    assert block["n"]["items"] == 480
    assert block["alpha_ci"]["humans_plus_llm"] is not None
    low, high = block["alpha_ci"]["humans_plus_llm"]
    assert low <= block["alpha"]["humans_plus_llm"] <= high
    assert len(result["evaluations"][0]["scatter"]["manner"]["points"]) == 240


def test_a_large_dimension_is_sampled_for_its_scatter(
    campaign_factory: Callable[..., Campaign], monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = build_large(campaign_factory, items=30)
    monkeypatch.setattr(items, "SCATTER_POINTS", 12)
    result = compute.compute_report(campaign, resamples=0)
    scatter = result["evaluations"][0]["scatter"]["manner"]
    assert scatter["total"] == 30
    assert len(scatter["points"]) == 12
    assert len({point[0] for point in scatter["points"]}) == 12


# Cache and jobs -------------------------------------------------------------------------------


def test_a_computed_report_is_fresh_until_a_new_answer_arrives(small: Campaign) -> None:
    assert cache.report_state(small).report is None
    job = cache.run_report(small, resamples=0)
    assert job.status == Job.Status.DONE and job.kind == cache.REPORT_KIND
    state = cache.report_state(small)
    assert state.report == job and state.fresh
    assert state.result is not None and state.result["campaign"] == small.pk
    z = User.objects.get(username="z")
    answer(z, small.transcripts.get(external_id="t1"), {"manner": 3})
    stale = cache.report_state(small)
    assert stale.report == job and not stale.fresh


def test_a_changed_llm_score_makes_the_report_stale(small: Campaign) -> None:
    cache.run_report(small, resamples=0)
    LLMScore.objects.filter(transcript__external_id="t2", dimension__key="manner").update(score=5)
    assert not cache.report_state(small).fresh


def test_computing_reports_its_progress_step_by_step(small: Campaign) -> None:
    seen: list[tuple[int, int | None, str]] = []
    job = cache.run_report(
        small, resamples=0, on_progress=lambda j: seen.append((j.done, j.total, j.message))
    )
    # Three rated dimensions, one pairwise, the pooled one, and the final step.
    assert job.total == 6 and job.done == 6
    messages = [message for _done, _total, message in seen]
    assert "Agreement on manner with gpt" in messages
    assert "Agreement on all with gpt" in messages


def test_starting_a_computation_already_under_way_reuses_its_job(
    small: Campaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[Job] = []
    monkeypatch.setattr(jobs, "start", started.append)
    first = cache.start_report(small)
    second = cache.start_report(small)
    assert first == second and started == [first]
    assert first.params["fingerprint"] == cache.data_fingerprint(small)
    assert first.params["resamples"] == cache.RESAMPLES


def test_a_pending_job_that_never_started_does_not_block_a_new_one(
    small: Campaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    abandoned = jobs.create(
        cache.REPORT_KIND,
        {"campaign": small.pk, "fingerprint": cache.data_fingerprint(small)},
    )
    abandoned.created_at = timezone.now() - jobs.STALE_AFTER * 2
    abandoned.save(update_fields=["created_at"])
    monkeypatch.setattr(jobs, "start", lambda job: None)
    assert cache.report_state(small).running is None
    assert cache.start_report(small) != abandoned


def test_a_job_for_a_deleted_campaign_fails_with_a_reason(small: Campaign) -> None:
    job = jobs.create(cache.REPORT_KIND, {"campaign": small.pk + 1000})
    finished = jobs.run(job)
    assert finished.status == Job.Status.FAILED
    assert finished.errors == ["The campaign no longer exists."]


# Figures ------------------------------------------------------------------------------------


def test_alpha_colours_run_from_white_to_blue_and_red() -> None:
    assert alpha_colour(0.0) == "#ffffff"
    assert alpha_colour(1.0) == "#2563eb"
    assert alpha_colour(-1.0) == "#dc2626"
    # Undefined: no fill of its own; the class "empty" draws it in the theme's grey.
    assert alpha_colour(None) == ""


def test_every_alpha_colour_carries_its_value_at_4_5_to_1() -> None:
    """Between light and deep lies a band where neither dark nor white text reaches 4.5:1
    (#4f82ef, α ≈ 0.75, gave 3.9 at best); such a value is drawn at the first readable shade."""
    for step in range(-100, 101):
        fill = alpha_colour(step / 100)
        text = ON_DARK if on_fill(fill) == "on-dark" else ON_LIGHT
        assert contrast(fill, text) >= 4.5, (step, fill)
    shades = [alpha_colour(step / 100) for step in range(0, 101)]
    # Deeper with α, never lighter: the red channel only falls on the way to blue.
    reds = [int(colour[1:3], 16) for colour in shades]
    assert reds == sorted(reds, reverse=True)


def test_the_heatmap_has_a_cell_per_dimension_and_system(small_result: dict[str, Any]) -> None:
    figure = heatmap_figure(small_result, small_result["evaluations"][0])
    assert figure is not None
    # Pooled, quality, manner and acceptance × kbrd and unicrs.
    assert len([box for box in figure.boxes if box.css.split()[0] == "cell"]) == 8
    kbrd = small_result["evaluations"][0]["dimensions"]["manner"]["by"]["system"]["kbrd"]
    alpha = kbrd["alpha"]["llm_vs_humans"]
    assert f"Manner · kbrd: α = {alpha:.2f}" in [box.label for box in figure.boxes]


def test_heatmap_column_labels_never_overlap(
    small_result: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Short system names stand level over their columns; once one is wider than its column,
    all stand upright (one line of text each, 76 px apart), and a very long one is cut, its
    full name kept in the label's tooltip."""
    evaluation = small_result["evaluations"][0]
    level = heatmap_figure(small_result, evaluation)
    assert level is not None
    columns = [text for text in level.texts if text.y < 34]
    assert len(columns) == 2 and not any(text.vertical for text in columns)
    assert all(text_width(text.text) <= 70 for text in columns)

    long = "A recommender with a very long name indeed, " * 3
    monkeypatch.setattr("annotation.report.figures.system_label", lambda system: long + system)
    upright = heatmap_figure(small_result, evaluation)
    assert upright is not None
    columns = [text for text in upright.texts if text.vertical]
    assert len(columns) == 2
    for text in columns:
        assert text.text.endswith("…") and text_width(text.text) <= LONGEST_LABEL
        assert text.title.startswith(long)
        # Upright text climbs from its baseline, which sits below the figure's first row of
        # cells' top and leaves room for the whole label above it.
        assert text.y - text_width(text.text) >= 0
    assert columns[1].x - columns[0].x >= 11
    html = render_to_string("charts/_figure.html", {"figure": upright})
    assert f"<title>{long}kbrd</title>" in html and 'transform="rotate(-90' in html


def test_chart_text_takes_the_theme_colour_not_a_fixed_one(
    small_result: dict[str, Any],
) -> None:
    """No figure fixes the colour of its text, axes or marks: the stylesheet draws them by
    class, in the light theme's and the dark theme's colours. Only cells that encode a value
    have a fill of their own."""
    evaluation = small_result["evaluations"][0]
    figure = heatmap_figure(small_result, evaluation)
    html = render_to_string("charts/_figure.html", {"figure": figure})
    assert "<text" in html
    assert not re.search(r"<(text|line|circle)[^>]*\b(fill|stroke)=", html)
    filled = re.findall(r'<rect class="([^"]*)"[^>]*\bfill="', html)
    assert filled and set(filled) <= {"cell"}


# The page -----------------------------------------------------------------------------------


def urls(campaign: Campaign) -> list[str]:
    return [
        reverse("annotation_report:page", args=[campaign.pk]),
        reverse("annotation_report:compute", args=[campaign.pk]),
        reverse("annotation_report:workbook", args=[campaign.pk]),
        reverse("annotation_report:csv", args=[campaign.pk, "summary"]),
        reverse("annotation_report:progress", args=[campaign.pk, 1]),
    ]


def test_anonymous_visitors_are_sent_to_the_login_page(small: Campaign) -> None:
    client = Client()
    for url in urls(small):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url


def test_judges_and_annotators_are_refused(small: Campaign) -> None:
    for client in (client_of("jade", roles.JUDGES), client_of("anna", roles.ANNOTATORS)):
        for url in urls(small):
            assert client.get(url).status_code == 403, url
        assert client.post(urls(small)[1]).status_code == 403


def test_the_page_offers_to_compute_a_report_not_computed_yet(
    small: Campaign, coordinator_client: Client
) -> None:
    response = coordinator_client.get(reverse("annotation_report:page", args=[small.pk]))
    assert response.status_code == 200
    assert b'id="report-missing"' in response.content
    assert reverse("annotation_report:compute", args=[small.pk]).encode() in response.content


def test_computing_from_the_page_shows_the_report(
    small: Campaign, coordinator_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "start", jobs.run)
    monkeypatch.setattr(cache, "RESAMPLES", RESAMPLES)
    page = reverse("annotation_report:page", args=[small.pk])
    response = coordinator_client.post(reverse("annotation_report:compute", args=[small.pk]))
    assert response.status_code == 302 and response["Location"] == page
    job = Job.objects.get(kind=cache.REPORT_KIND)
    assert job.status == Job.Status.DONE and job.params["resamples"] == RESAMPLES
    html = coordinator_client.get(page).content.decode()
    assert 'id="verdict"' in html
    assert "Whether the LLM evaluator gpt can stand in for a human annotator" in html
    assert 'id="report-stale"' not in html
    assert reverse("annotation_report:workbook", args=[small.pk]) in html


def test_the_page_shows_the_summary_breakdowns_and_figures(
    small: Campaign, coordinator_client: Client
) -> None:
    cache.run_report(small, resamples=RESAMPLES)
    html = coordinator_client.get(reverse("annotation_report:page", args=[small.pk])).content
    text = html.decode()
    start = text.index('id="summary-1"')
    summary = text[start : text.index("</section>", start)]
    assert summary.count("<tr data-dimension=") == 4  # pooled, quality, manner, acceptance
    # Pearson r of manner, 5/√36.25, to two decimals.
    assert "0.83" in summary
    assert 'id="per-system-table"' in text and 'id="per-persona-emotion"' in text
    assert text.count('class="point"') == 11  # 4 + 4 + 3 items with both scores
    assert text.count('class="cell"') == 8
    assert text.count('class="bar human"') == 14  # 5 + 5 + 2 + 2 scale points
    assert text.count('class="bar llm"') == 14
    assert 'role="img"' in text and '<title id="scatter-manner-title">' in text
    assert 'id="pairwise"' in text and "43%" in text  # 3 of 7 prefer A
    pairwise = text[
        text.index('id="pairwise"') : text.index("</section>", text.index('id="pairwise"'))
    ]
    assert "α LLM–humans" in pairwise
    assert "chance 50%; p = 0.750 against chance" in pairwise
    rates = text[text.index('id="rates"') : text.index("</section>", text.index('id="rates"'))]
    assert rates.count("<tr data-dimension=") == 4
    assert "0.19 uniform" not in rates  # the uniform level of exact agreement on 1–5 is 0.20
    assert "0.20 uniform on the scale; 0.19 from the observed answers" in rates
    assert "0.52 uniform on the scale; 0.53 from the observed answers" in rates
    assert '<p class="pairwise-verdict">Better response: The LLM cannot stand in for people' in (
        unescape(pairwise)
    )


def test_the_largest_disagreements_link_to_the_transcripts(
    small: Campaign, coordinator_client: Client
) -> None:
    cache.run_report(small, resamples=0)
    html = coordinator_client.get(reverse("annotation_report:page", args=[small.pk])).content
    t3 = small.transcripts.get(external_id="t3")
    link = reverse("annotation:transcript_scores", args=[small.pk, t3.pk])
    assert f'<a href="{link}">t3</a>'.encode() in html
    assert b"-2.00" in html


def test_each_evaluator_has_a_summary_and_the_dropdown_picks_the_verdict(
    small: Campaign, coordinator_client: Client
) -> None:
    for transcript in small.transcripts.filter(external_id__startswith="t"):
        machine(transcript, "llama", {"manner": 3, "quality": 3})
    cache.run_report(small, resamples=0)
    page = reverse("annotation_report:page", args=[small.pk])
    first = coordinator_client.get(page).content.decode()
    assert 'id="summary-1"' in first and 'id="summary-2"' in first
    # The first evaluator by name is shown unless another is chosen.
    assert '<option value="gpt" selected>' in first
    chosen = coordinator_client.get(page, {"evaluator": "llama"}).content.decode()
    verdict = chosen[chosen.index('id="verdict"') :].split("</p>")[0]
    assert "Whether the LLM evaluator llama can stand in " in verdict
    assert '<option value="llama" selected>' in chosen


def test_a_stale_report_is_shown_with_a_recompute_button_and_no_exports(
    small: Campaign, coordinator_client: Client
) -> None:
    cache.run_report(small, resamples=0)
    machine(small.transcripts.get(external_id="t1"), "llama", {"manner": 2})
    html = coordinator_client.get(reverse("annotation_report:page", args=[small.pk])).content
    assert b'id="report-stale"' in html and b'id="compute-form"' in html
    assert b'id="report-exports"' not in html
    assert b'id="verdict"' in html


def test_a_running_computation_shows_its_progress(
    small: Campaign, coordinator_client: Client
) -> None:
    job = jobs.create(cache.REPORT_KIND, {"campaign": small.pk, "fingerprint": {}})
    job.status, job.done, job.total = Job.Status.RUNNING, 2, 6
    job.heartbeat_at = timezone.now()
    job.worker = jobs.worker_id()
    job.save()
    html = coordinator_client.get(reverse("annotation_report:page", args=[small.pk])).content
    assert f'ws-connect="/ws/jobs/{job.pk}/?lang=en"'.encode() in html
    assert b'data-percent="33"' in html
    progress = reverse("annotation_report:progress", args=[small.pk, job.pk])
    assert coordinator_client.get(progress).status_code == 200
    job.status = Job.Status.DONE
    job.save()
    finished = coordinator_client.get(progress, headers={"HX-Request": "true"})
    assert finished.status_code == 200 and finished["HX-Refresh"] == "true"


@override_settings(CHANNEL_LAYERS={"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}})
def test_a_computation_run_by_another_process_is_polled_not_watched_on_a_socket(
    small: Campaign, coordinator_client: Client
) -> None:
    job = jobs.create(cache.REPORT_KIND, {"campaign": small.pk, "fingerprint": {}})
    job.status, job.heartbeat_at, job.worker = Job.Status.RUNNING, timezone.now(), "elsewhere:1"
    job.save()
    html = coordinator_client.get(reverse("annotation_report:page", args=[small.pk])).content
    # The in-memory channel layer cannot carry that process's pushes here: only polling.
    assert b"ws-connect" not in html
    assert b'hx-trigger="every 2s" data-poll-unless-socket' in html
    assert reverse("annotation_report:progress", args=[small.pk, job.pk]).encode() in html


def test_a_failed_computation_shows_its_errors(small: Campaign, coordinator_client: Client) -> None:
    job = jobs.create(cache.REPORT_KIND, {"campaign": small.pk})
    job.status, job.errors = Job.Status.FAILED, ["the database went away"]
    job.save()
    html = coordinator_client.get(reverse("annotation_report:page", args=[small.pk])).content
    assert b'id="report-failed"' in html and b"the database went away" in html


def test_the_progress_of_another_campaigns_job_is_not_found(
    small: Campaign, campaign_factory: Callable[..., Campaign], coordinator_client: Client
) -> None:
    other = campaign_factory(name="Other")
    job = jobs.create(cache.REPORT_KIND, {"campaign": other.pk})
    url = reverse("annotation_report:progress", args=[small.pk, job.pk])
    assert coordinator_client.get(url).status_code == 404


def test_the_campaign_dashboard_links_to_the_report(
    small: Campaign, coordinator_client: Client
) -> None:
    html = coordinator_client.get(reverse("annotation:dashboard", args=[small.pk])).content
    link = reverse("annotation_report:page", args=[small.pk])
    assert f'href="{link}" id="agreement-report"'.encode() in html


def test_a_breakdown_table_counts_its_intervals_and_marks_what_survives_bh(
    campaign_factory: Callable[..., Campaign], coordinator_client: Client
) -> None:
    # gpt follows the people on every system: each Pearson r has a tiny p and survives.
    campaign = build_large(campaign_factory, items=120)
    cache.run_report(campaign, resamples=100)
    text = coordinator_client.get(reverse("annotation_report:page", args=[campaign.pk])).content
    html = unescape(text.decode())
    start = html.index('id="per-system-table"')
    table = html[start : html.index("</section>", start)]
    # Three rated dimensions × three systems: nine Pearson p-values corrected together.
    assert "* marks a Pearson r whose p-value survives a Benjamini–Hochberg correction" in table
    assert "across the table's 9 tests: 9 do." in table
    assert table.count('<sup class="survives">*</sup>') == 9
    shown = re.search(r"This table shows (\d+) intervals of 95%", table)
    assert shown is not None and int(shown.group(1)) == table.count("[") > 9
    # The Per system export carries the same marks and count, as data and as a note.
    result = cache.run_report(campaign, resamples=100).result
    exported = exports.csv_bytes(campaign, result, "per-system").decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(exported)))
    assert len(rows) == 9 and {row["survives_bh"] for row in rows} == {"True"}
    note = rows[0]["notes_label"]
    assert f"which shows {shown.group(1)} 95% intervals" in note
    assert "across the table's 9 rows with a p-value (9 do)" in note


def test_benjamini_hochberg_matches_the_hand_computation() -> None:
    from evalsite.agreement.alt_test import benjamini_hochberg

    # m = 4: sorted p 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.04, 0.04, 0.5 (min over i ≥ k of m·p/i).
    adjusted, kept = benjamini_hochberg([0.03, 0.5, 0.01, 0.02])
    assert adjusted == pytest.approx((0.04, 0.5, 0.04, 0.04))
    assert kept == (True, False, True, True)
