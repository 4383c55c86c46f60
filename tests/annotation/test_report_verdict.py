"""The report's verdict: the alt-test's ε from the campaign, the alt-test and α LLM–human."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Campaign, LLMScore, Response
from annotation.report import cache
from evalsite import jobs
from tests.annotation.conftest import dialogue, person

pytestmark = pytest.mark.django_db

# Enough items for every annotator to be tested by the alt-test (it needs 30).
PANEL_ITEMS = 40


def build_panel(make: Callable[..., Campaign], llm: str, name: str = "Panel") -> Campaign:
    """Three people who agree closely score manner and quality on ``PANEL_ITEMS`` dialogues;
    the LLM evaluator gpt scores at random (``llm="random"``) or copies u1 (``llm="copy"``)."""
    campaign = make(name=name, rows=[dialogue(f"d{n:03d}") for n in range(PANEL_ITEMS)])
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
