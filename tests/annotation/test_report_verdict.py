"""The report's verdict: the alt-test's ε from the campaign, the alt-test and α LLM–human."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from html import unescape
from typing import Any

import numpy as np
import openpyxl
import pandas as pd
import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Campaign, LLMScore, Response
from annotation.report import cache, compute, dimensions
from annotation.report import verdict as report_verdict
from annotation.report import workbook as exports
from evalsite import jobs, roles
from evalsite.agreement.engine import agreement_blocks
from tests.annotation.conftest import dialogue, person

pytestmark = pytest.mark.django_db

# Enough items for every annotator to be tested by the alt-test (it needs 30).
PANEL_ITEMS = 40


def build_panel(
    make: Callable[..., Campaign], llm: str, name: str = "Panel", items: int = PANEL_ITEMS
) -> Campaign:
    """Three people who agree closely score manner and quality on ``items`` dialogues;
    the LLM evaluator gpt scores at random (``llm="random"``) or copies u1 (``llm="copy"``).

    With ``llm="constant"`` it copies u1 on manner, while on quality each person answers 5
    with probability 0.85 (else 4) and the LLM always answers 5."""
    campaign = make(name=name, rows=[dialogue(f"d{n:03d}") for n in range(items)])
    rng = np.random.default_rng(11)
    transcripts = list(campaign.transcripts.order_by("position"))
    dimensions = {d.key: d for d in campaign.rubric.dimensions.all()}
    people = [person(username, "annotators") for username in ("u1", "u2", "u3")]
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
    responses, scores = [], []
    for index, transcript in enumerate(transcripts):
        for key in ("manner", "quality"):
            truth = int(rng.integers(1, 6))
            given = [int(np.clip(truth + rng.choice([0, 0, 0, 0, 1, -1]), 1, 5)) for _ in people]
            constant = llm == "constant" and key == "quality"
            if constant:
                given = [5 if rng.random() < 0.85 else 4 for _ in people]
            for offset, value in enumerate(given):
                responses.append(
                    Response(
                        assignment=assignments[index * 3 + offset],
                        transcript=transcript,
                        dimension=dimensions[key],
                        value=value,
                    )
                )
            guess = float(rng.integers(1, 6)) if llm == "random" else float(given[0])
            if constant:
                guess = 5.0
            scores.append(
                LLMScore(
                    transcript=transcript, dimension=dimensions[key], evaluator="gpt", score=guess
                )
            )
    Response.objects.bulk_create(responses)
    LLMScore.objects.bulk_create(scores)
    return campaign


# The campaign's ε -------------------------------------------------------------------------------


def test_a_campaign_takes_the_skilled_annotators_epsilon_by_default(
    campaign: Campaign,
) -> None:
    campaign.refresh_from_db()
    assert campaign.alt_test_epsilon == 0.15


@pytest.mark.parametrize("value", [-0.01, 1.0, 1.5])
def test_an_epsilon_outside_zero_to_one_is_refused(campaign: Campaign, value: float) -> None:
    campaign.alt_test_epsilon = value
    with pytest.raises(ValidationError) as refused:
        campaign.full_clean()
    assert refused.value.error_dict["alt_test_epsilon"][0].code == "epsilon"
    with pytest.raises(IntegrityError), transaction.atomic():
        campaign.save()


def test_the_campaign_settings_page_edits_epsilon_with_its_guidance(campaign: Campaign) -> None:
    admin = User.objects.create_superuser("root")
    client = Client()
    client.force_login(admin)
    page = client.get(reverse("admin:annotation_campaign_change", args=[campaign.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="alt_test_epsilon"' in html and 'value="0.15"' in html
    assert "0.2 for expert annotators, 0.15 for skilled ones, 0.1 for crowd workers" in html


def admin_form(campaign: Campaign, epsilon: str) -> dict[str, str]:
    return {
        "name": campaign.name,
        "rubric": str(campaign.rubric_id),
        "instructions": "",
        "annotations_per_item": "3",
        "hold_minutes": "30",
        "item_order": "shuffled",
        "alt_test_epsilon": epsilon,
        "status": "open",
        "created_at_0": "2026-01-05",
        "created_at_1": "10:00:00",
    }


def test_the_campaign_settings_page_stores_epsilon_and_refuses_one(campaign: Campaign) -> None:
    client = Client()
    client.force_login(User.objects.create_superuser("root"))
    url = reverse("admin:annotation_campaign_change", args=[campaign.pk])
    refused = client.post(url, admin_form(campaign, "1"))
    assert refused.status_code == 200
    assert "ε must be at least 0 and below 1." in refused.content.decode()
    campaign.refresh_from_db()
    assert campaign.alt_test_epsilon == 0.15
    saved = client.post(url, admin_form(campaign, "0.2"))
    assert saved.status_code == 302
    campaign.refresh_from_db()
    assert campaign.alt_test_epsilon == 0.2


def test_a_changed_epsilon_makes_the_report_stale_and_the_recompute_uses_it(
    campaign_factory: Callable[..., Campaign],
) -> None:
    panel = build_panel(campaign_factory, "copy")
    first = cache.run_report(panel, resamples=0)
    assert first.result["alt_test_epsilon"] == 0.15
    assert cache.report_state(panel).fresh
    panel.alt_test_epsilon = 0.1
    panel.save(update_fields=["alt_test_epsilon"])
    assert not cache.report_state(panel).fresh
    second = cache.run_report(panel, resamples=0)
    assert second.params["fingerprint"]["alt_test_epsilon"] == 0.1
    assert second.result["alt_test_epsilon"] == 0.1
    assert cache.report_state(panel).fresh


def test_a_changed_epsilon_starts_a_new_computation(
    campaign: Campaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "start", lambda job: None)
    first = cache.start_report(campaign)
    campaign.alt_test_epsilon = 0.2
    campaign.save(update_fields=["alt_test_epsilon"])
    second = cache.start_report(campaign)
    assert second != first and second.params["fingerprint"]["alt_test_epsilon"] == 0.2


# The verdict and the alt-test ------------------------------------------------------------------


@pytest.fixture
def random_panel(campaign_factory: Callable[..., Campaign]) -> Campaign:
    return build_panel(campaign_factory, "random")


@pytest.fixture
def copying_panel(campaign_factory: Callable[..., Campaign]) -> Campaign:
    return build_panel(campaign_factory, "copy")


def coordinator() -> Client:
    client = Client()
    client.force_login(person("cora", roles.COORDINATORS))
    return client


def test_an_llm_scoring_at_random_against_agreeing_people_does_not_agree(
    random_panel: Campaign,
) -> None:
    result = compute.compute_report(random_panel, resamples=0)
    evaluation = result["evaluations"][0]
    sentence = report_verdict.verdict(result, evaluation)
    assert sentence.startswith(
        "The LLM evaluator gpt cannot stand in for a human annotator over 2 dimensions pooled: "
        "it fails the alternative annotator test (winning rate 0.00 < 0.5), "
    )
    assert "In the alternative annotator test (ε = 0.15) it beat 0 of 3 annotators" in sentence
    for key in ("manner", "quality"):
        block = evaluation["dimensions"][key]
        assert block["alt_test"]["passed"] is False
        assert abs(block["alpha"]["llm_vs_humans"]) < 0.2
        assert block["alpha"]["humans_pairwise"] > 0.7
        # The figure the verdict no longer uses looks far better than chance.
        assert block["alpha"]["humans_plus_llm"] > 0.3


def test_the_page_says_a_random_llm_did_not_pass(random_panel: Campaign) -> None:
    cache.run_report(random_panel, resamples=0)
    html = coordinator().get(reverse("annotation_report:page", args=[random_panel.pk]))
    text = unescape(html.content.decode())
    verdict = text[text.index('id="verdict"') :].split("</p>")[0]
    assert "cannot stand in for a human annotator" in verdict
    assert "it fails the alternative annotator test" in verdict
    section = text[text.index('id="alt-test"') :].split("</section>")[0]
    assert section.count('class="alt-test"') == 3  # pooled, quality, manner
    assert "passed: no" in section and "passed: yes" not in section
    assert "Advantage probability" in section and 'class="alpha-humans-pairwise"' in section
    assert "The alternative annotator test used ε = 0.15, this campaign's setting" in text
    assert "0.2 for expert annotators, 0.15 for skilled ones, 0.1 for crowd workers" in text
    # ε bounds the alt-test, one check of four; it is not the verdict's line on its own.
    assert "before the LLM fails the test, one of the four checks of the verdict" in text
    assert 'id="humans-plus-llm-note"' in text and 'id="pooled-note"' in text
    pooled_note = text[text.index('id="pooled-note"') :].split("</p>")[0]
    assert "bias-corrected and accelerated (BCa), widened for few transcripts" in pooled_note
    assert "runs each t-test on the transcripts' means" in pooled_note


def test_an_llm_copying_one_person_passes(copying_panel: Campaign) -> None:
    # With intervals: without them the rule has no evidence that α is above chance.
    result = compute.compute_report(copying_panel, resamples=200)
    evaluation = result["evaluations"][0]
    sentence = report_verdict.verdict(result, evaluation)
    assert sentence.startswith(
        "The LLM evaluator gpt agrees with people well enough to stand in for a human "
        "annotator over 2 dimensions pooled: it passes all four checks of the rule. In the "
        "alternative annotator test (ε = 0.15) it beat 3 of 3 annotators, a winning rate of "
        "1.00 ≥ 0.5; its α with people is above 0 (lower bound "
    )
    assert "not significantly below α between people" in sentence
    assert "its answers vary (" in sentence
    assert report_verdict.failing_sentences(result, evaluation) == []
    manner = evaluation["dimensions"]["manner"]["alt_test"]
    assert manner["passed"] is True and manner["winning_rate"] == 1.0
    # Against u1, whom it copies, every item is a tie, which counts for both.
    u1 = next(human for human in manner["humans"] if human["rater"] == "u1")
    assert u1["advantage"] == 1.0 and u1["n_items"] == PANEL_ITEMS
    assert evaluation["pooled"]["verdict"]["stands_in"] is True


def test_pooled_dimensions_that_no_dimension_supports_give_no_verdict(
    campaign_factory: Callable[..., Campaign],
) -> None:
    # 20 dialogues: each dimension has 20 items, too few for the alt-test, while the 40 pooled
    # units are enough to run it. The pooled block says so and gives no verdict.
    panel = build_panel(campaign_factory, "copy", items=20)
    result = cache.run_report(panel, resamples=0).result
    evaluation = result["evaluations"][0]
    assert all(block["alt_test"] is None for block in evaluation["dimensions"].values())
    pooled = evaluation["pooled"]
    assert pooled["alt_test"] is not None and pooled["verdict"] is None
    reason = "none of the 2 dimensions could be tested on its own by the alternative annotator test"
    assert pooled["verdict_withheld"] == reason
    assert report_verdict.verdict(result, evaluation).startswith(
        "Whether the LLM evaluator gpt can stand in for a human annotator is not judged over 2 "
        f"dimensions pooled: {reason}. In the alternative annotator test (ε = 0.15) it beat "
    )
    client = coordinator()
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    text = client.get(reverse("annotation_report:page", args=[panel.pk])).content.decode()
    verdict = text[text.index('id="verdict"') :].split("</p>")[0]
    assert (
        "不判断大模型评估器 gpt 能否替代人工标注者（合并 2 个维度）：2 个维度都不能单独接受"
        in verdict
    )


def test_a_constant_dimension_keeps_the_page_from_saying_the_llm_stands_in(
    campaign_factory: Callable[..., Campaign],
) -> None:
    # The LLM copies u1 on manner and always answers 5 on quality, where people answer 5 85% of
    # the time: the pooled block passes the rule, quality fails it on its own, and so the
    # headline, like the whole-file verdict of ``manage.py agreement``, must not say it stands in.
    panel = build_panel(campaign_factory, "constant")
    result = cache.run_report(panel, resamples=200).result
    evaluation = result["evaluations"][0]
    assert evaluation["pooled"]["verdict"]["stands_in"] is True
    quality = evaluation["dimensions"]["quality"]["verdict"]
    assert quality["stands_in"] is False
    assert report_verdict.campaign_verdict(evaluation) is not None
    assert report_verdict.campaign_verdict(evaluation).stands_in is False  # type: ignore[union-attr]
    client = coordinator()
    text = unescape(client.get(reverse("annotation_report:page", args=[panel.pk])).content.decode())
    verdict = text[text.index('id="verdict"') :].split("</p>")[0]
    assert "well enough to stand in" not in verdict
    assert (
        "The LLM evaluator gpt cannot stand in for a human annotator over this campaign: it "
        "passes the rule over 2 dimensions pooled, but fails it on its own on Response quality"
    ) in verdict
    failing = text[text.index('id="failing-dimensions"') :].split("</ul>")[0]
    assert "Response quality: The LLM cannot stand in for people:" in failing
    assert "it gives the same answer to every item" in failing
    assert "Manner" not in failing
    summary = text[text.index('id="summary-1"') :].split("</section>")[0]
    assert summary.count("Stands in") == 1

    def stands_in_cell(dimension: str) -> str:
        row = summary[summary.index(f'data-dimension="{dimension}"') :].split("</tr>")[0]
        return row[row.index('class="stands-in"') :]

    assert stands_in_cell("quality").startswith('class="stands-in">no<br>')
    assert stands_in_cell("manner").startswith('class="stands-in">yes</td>')
    rows = {row["dimension"]: row for row in csv_table(panel, result, "summary")}
    assert rows["quality"]["stands_in"] == "False" and rows["manner"]["stands_in"] == "True"
    assert "same answer to every item" in rows["quality"]["stands_in_label"]
    detail = {row["dimension"]: row for row in csv_table(panel, result, "per-dimension")}
    assert detail["quality"]["stands_in"] == "False" and detail["all"]["stands_in"] == "True"
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    text = client.get(reverse("annotation_report:page", args=[panel.pk])).content.decode()
    verdict = text[text.index('id="verdict"') :].split("</p>")[0]
    assert "大模型评估器 gpt 不能在整个活动中替代人工标注者" in verdict


def test_without_intervals_a_passing_alt_test_is_not_enough(copying_panel: Campaign) -> None:
    result = compute.compute_report(copying_panel, resamples=0)
    sentence = report_verdict.verdict(result, result["evaluations"][0])
    assert sentence.startswith(
        "The LLM evaluator gpt cannot stand in for a human annotator over 2 dimensions pooled: "
        "its α with people has no confidence interval and its α with people cannot be set "
        "against α between people. In the alternative annotator test (ε = 0.15) it beat 3 of 3 "
        "annotators, a winning rate of 1.00."
    )


def test_the_alt_test_uses_the_campaigns_epsilon(copying_panel: Campaign) -> None:
    copying_panel.alt_test_epsilon = 0.1
    copying_panel.save(update_fields=["alt_test_epsilon"])
    result = cache.run_report(copying_panel, resamples=0).result
    evaluation = result["evaluations"][0]
    assert evaluation["pooled"]["alt_test"]["epsilon"] == 0.1
    assert {block["alt_test"]["epsilon"] for block in evaluation["dimensions"].values()} == {0.1}
    assert "(ε = 0.1)" in report_verdict.verdict(result, evaluation)


def test_the_pooled_block_resamples_transcripts_and_centres_within_dimensions(
    random_panel: Campaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, Any]] = []
    engine = agreement_blocks

    def spy(frame: pd.DataFrame, **options: Any) -> Any:
        calls.append({"dimensions": set(frame["dimension"]), "frame": frame, **options})
        return engine(frame, **options)

    monkeypatch.setattr(compute, "agreement_blocks", spy)
    compute.compute_report(random_panel, resamples=0)
    pooled = [call for call in calls if call["dimensions"] == {dimensions.POOLED}]
    assert len(pooled) == 1
    call = pooled[0]
    assert call["cluster"] == compute.POOLED_CLUSTER and call["within"] == compute.POOLED_WITHIN
    frame = call["frame"]
    # Each transcript is one cluster holding both of its dimensions' units.
    assert frame[compute.POOLED_CLUSTER].nunique() == PANEL_ITEMS
    assert set(frame[compute.POOLED_WITHIN]) == {"manner", "quality"}
    assert (frame.groupby(compute.POOLED_CLUSTER)["item"].nunique() == 2).all()
    others = [call for call in calls if call["dimensions"] != {dimensions.POOLED}]
    assert others and all(call["cluster"] is None and call["within"] is None for call in others)


# The exports -----------------------------------------------------------------------------------


def workbook_bytes(campaign: Campaign, result: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    exports.write_report_workbook(buffer, campaign, result)
    return buffer.getvalue()


def csv_table(campaign: Campaign, result: dict[str, Any], slug: str) -> list[dict[str, str]]:
    text = exports.csv_bytes(campaign, result, slug).decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def test_the_exports_carry_the_alt_test_and_alpha_llm_human(random_panel: Campaign) -> None:
    result = compute.compute_report(random_panel, resamples=0)
    manner = next(
        row
        for row in csv_table(random_panel, result, "per-dimension")
        if row["dimension"] == "manner"
    )
    block = result["evaluations"][0]["dimensions"]["manner"]
    assert float(manner["alpha_llm_vs_humans"]) == pytest.approx(block["alpha"]["llm_vs_humans"])
    assert float(manner["alpha_humans_pairwise"]) == pytest.approx(
        block["alpha"]["humans_pairwise"]
    )
    assert manner["alt_test_epsilon"] == "0.15" and manner["alt_test_passed"] == "False"
    assert float(manner["alt_test_winning_rate"]) == 0.0
    assert float(manner["alt_test_advantage_probability"]) == pytest.approx(
        block["alt_test"]["advantage_probability"]
    )
    assert float(manner["exact_agreement_per_item"]) == pytest.approx(
        block["exact_agreement_per_item"]
    )
    for header in ("alpha_llm_vs_humans_low", "alpha_humans_pairwise_high"):
        assert header in manner
    summary = csv_table(random_panel, result, "summary")
    verdicts = [row["verdict_label"] for row in summary if row["verdict_label"]]
    assert len(verdicts) == 1 and "cannot stand in for a human annotator" in verdicts[0]
    assert "ε = 0.15, this campaign's setting" in verdicts[0]
    alt = csv_table(random_panel, result, "alt-test")
    # One row per dimension (the pooled one too) and tested person.
    assert len(alt) == 3 * 3
    assert set(alt[0]) == {
        "evaluator",
        "dimension",
        "human",
        "n_items",
        "p_value",
        "p_adjusted",
        "rejected",
        "advantage",
    }
    assert {row["rejected"] for row in alt} == {"False"}
    assert {row["human"] for row in alt} == {"u1", "u2", "u3"}
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes(random_panel, result)))
    assert book["Alt-test"].max_row == 1 + 9


def test_the_page_gives_the_verdict_and_the_alt_test_in_chinese(random_panel: Campaign) -> None:
    cache.run_report(random_panel, resamples=0)
    client = coordinator()
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    text = client.get(reverse("annotation_report:page", args=[random_panel.pk])).content.decode()
    verdict = text[text.index('id="verdict"') :].split("</p>")[0]
    assert (
        "大模型评估器 gpt 不能替代人工标注者（合并 2 个维度）：它没有通过替代标注者检验" in verdict
    )
    assert "通过：否" in text and "替代标注者检验使用 ε = 0.15" in text
