"""Annotators never see LLM scores or other annotators' answers: not in the HTML, not in the
queries behind it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation import queue
from annotation.models import Assignment, Campaign, LLMScore
from tests.annotation.conftest import dialogue, person

pytestmark = pytest.mark.django_db

MARKERS = (
    "LLM-EVALUATOR-MARKER",
    "LLM-RATIONALE-MARKER",
    "4.37",
    "OTHER-ANNOTATOR-MARKER",
    "other-annotator-name",
)


@pytest.fixture
def scored(campaign_factory: Callable[..., Campaign]) -> Campaign:
    campaign = campaign_factory(rows=[dialogue("t1"), dialogue("t2")])
    overall = campaign.rubric.dimensions.get(key="overall")
    for transcript in campaign.transcripts.all():
        LLMScore.objects.create(
            transcript=transcript,
            dimension=overall,
            evaluator="LLM-EVALUATOR-MARKER",
            score=4.37,
            rationale="LLM-RATIONALE-MARKER",
        )
    other = person("other-annotator-name", "annotators")
    held = queue.next_for(other, campaign)
    assert held is not None
    queue.submit(other, held.transcript, [queue.Answer(overall, 2, "OTHER-ANNOTATOR-MARKER")], 900)
    return campaign


def assert_blind(html: str) -> None:
    for marker in MARKERS:
        assert marker not in html, marker


def test_no_annotator_page_shows_llm_scores_or_other_answers(scored: Campaign) -> None:
    client = Client()
    client.force_login(person("blind", "annotators"))
    pages = [client.get(reverse("home")), client.get(reverse("annotation:work", args=[scored.pk]))]
    item = pages[-1]["Location"]
    pages.append(client.get(item))
    answers = {f"answer_{d.key}": d.scale_min for d in scored.rubric.dimensions.all()}
    pages.append(client.post(item, answers, HTTP_HX_REQUEST="true"))
    pages.append(client.get(reverse("annotation:mine", args=[scored.pk])))
    pages.append(client.get(pages[-2]["HX-Push-Url"]))
    pages.append(client.post(pages[-1].wsgi_request.path, answers, follow=True))
    assert [page.status_code for page in pages] == [200, 302, 200, 200, 200, 200, 200]
    assert "Nothing is waiting for you" in pages[-1].content.decode()
    for page in pages:
        assert_blind(page.content.decode())


def test_the_item_page_never_queries_llm_scores_or_others_answers(scored: Campaign) -> None:
    client = Client()
    client.force_login(person("blind", "annotators"))
    item = client.get(reverse("annotation:work", args=[scored.pk]))["Location"]
    mine = Assignment.objects.get(annotator__username="blind")
    with CaptureQueriesContext(connection) as captured:
        assert client.get(item).status_code == 200
    sql = [query["sql"] for query in captured.captured_queries]
    assert not [q for q in sql if "annotation_llmscore" in q]
    on_responses = [q for q in sql if 'FROM "annotation_response"' in q]
    assert on_responses and all(f'"assignment_id" = {mine.pk}' in q for q in on_responses)


def test_coordinators_do_see_both(scored: Campaign) -> None:
    client = Client()
    client.force_login(person("boss", "coordinators"))
    transcript = scored.transcripts.get(external_id="t1")
    html = client.get(
        reverse("annotation:transcript_scores", args=[scored.pk, transcript.pk])
    ).content.decode()
    for marker in MARKERS:
        assert marker in html, marker
