from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation import progress
from annotation.models import Assignment, Campaign, Response, Transcript
from tests.annotation.conftest import dialogue, person

pytestmark = pytest.mark.django_db


def annotate(
    user: User, transcript: Transcript, status: str, time_ms: int = 0, manner: int | None = None
) -> None:
    assignment = Assignment.objects.create(
        campaign=transcript.campaign,
        transcript=transcript,
        annotator=user,
        status=status,
        time_on_task_ms=time_ms,
        submitted_at=timezone.now() if status == "submitted" else None,
    )
    if manner is not None:
        Response.objects.create(
            assignment=assignment,
            transcript=transcript,
            dimension=transcript.campaign.rubric.dimensions.get(key="manner"),
            value=manner,
        )


@pytest.fixture
def worked(campaign_factory: Callable[..., Campaign]) -> Campaign:
    """R = 2. x did all three items (t1 right on gold), y got gold wrong and skipped t2,
    z did t3, w holds t2."""
    campaign = campaign_factory(
        rows=[dialogue("t1", gold={"manner": 4}), dialogue("t2"), dialogue("t3")],
        annotations_per_item=2,
    )
    t1, t2, t3 = campaign.transcripts.order_by("position")
    x, y, z, w = (person(name, "annotators") for name in "xyzw")
    annotate(x, t1, "submitted", 10_000, manner=4)
    annotate(x, t2, "submitted", 20_000, manner=3)
    annotate(x, t3, "submitted", 60_000, manner=3)
    annotate(y, t1, "submitted", 3_000, manner=2)
    annotate(y, t2, "skipped")
    annotate(z, t3, "submitted", 5_000, manner=5)
    annotate(w, t2, "held")
    return campaign


def test_it_counts_done_skipped_median_time_and_gold_accuracy(worked: Campaign) -> None:
    rows = {row.username: row for row in progress.annotator_rows(worked)}
    assert set(rows) == {"x", "y", "z", "w"}
    assert (rows["w"].done, rows["w"].held, rows["x"].held) == (0, 1, 0)
    assert rows["w"].last_activity is not None and rows["x"].last_activity is not None
    assert (rows["x"].done, rows["x"].skipped, rows["x"].median_seconds) == (3, 0, 20.0)
    assert (rows["x"].gold_correct, rows["x"].gold_total, rows["x"].gold_accuracy) == (1, 1, 1.0)
    assert (rows["y"].done, rows["y"].skipped, rows["y"].median_seconds) == (1, 1, 3.0)
    assert rows["y"].gold_accuracy == 0.0
    assert (rows["z"].median_seconds, rows["z"].gold_accuracy) == (5.0, None)


def test_the_coverage_histogram_runs_from_zero_to_r(worked: Campaign) -> None:
    assert [(b.annotations, b.items, b.percent) for b in progress.coverage(worked)] == [
        (0, 0, 0),
        (1, 1, 33),
        (2, 2, 66),
    ]
    figures = progress.campaign_figures(worked, fresh=True)
    assert figures == progress.CampaignFigures(items=3, team=0, submitted=5)
    assert progress.campaign_bar(worked, figures) == progress.Bar(5, 6)
    assert progress.campaign_bar(worked, figures).percent == 83


def test_the_dashboard_page_shows_annotators_coverage_and_transcripts(worked: Campaign) -> None:
    client = Client()
    client.force_login(person("boss", "coordinators"))
    html = client.get(reverse("annotation:dashboard", args=[worked.pk])).content.decode()
    assert "5 of 6 annotations submitted (83%)." in html
    assert "1 item held right now" in html
    x_row = html.split('data-annotator="x"')[1].split("</tr>")[0]
    assert '<td class="done">3</td>' in x_row and '<td class="median">20.0</td>' in x_row
    assert "100% (1/1)" in x_row
    assert "0% (0/1)" in html.split('data-annotator="y"')[1].split("</tr>")[0]
    coverage = html.split('id="coverage"')[1]
    assert '<tr data-annotations="1"><td>1</td><td class="items">1</td>' in coverage
    assert '<tr data-annotations="2"><td>2</td><td class="items">2</td>' in coverage
    t2 = worked.transcripts.get(external_id="t2")
    link = reverse("annotation:transcript_scores", args=[worked.pk, t2.pk])
    assert f'<a href="{link}">t2</a>' in html
    assert "1 / 2" in html and "gold" in html


def test_the_annotators_progress_is_their_share_of_the_work(
    worked: Campaign,
) -> None:
    x = User.objects.get(username="x")
    figures = progress.campaign_figures(worked, fresh=True)
    assert progress.annotator_bar(x, worked, figures) == progress.Bar(3, 3)
    worked.annotators.set(User.objects.filter(username__in=["x", "y", "z", "w"]))
    figures = progress.campaign_figures(worked, fresh=True)
    # 3 items × R 2 over 4 annotators: a share of 2.
    assert progress.annotator_bar(x, worked, figures) == progress.Bar(3, 2)
    assert progress.annotator_bar(x, worked, figures).percent == 100


def test_the_campaign_figures_are_reused_briefly_unless_asked_fresh(worked: Campaign) -> None:
    assert progress.campaign_figures(worked).submitted == 5
    Assignment.objects.filter(status="held").update(status="submitted")
    assert progress.campaign_figures(worked).submitted == 5
    assert progress.campaign_figures(worked, fresh=True).submitted == 6
    assert progress.campaign_figures(worked).submitted == 6
