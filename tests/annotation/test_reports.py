from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation import queue
from annotation.models import Campaign, LLMScore
from annotation.report.scores import COLUMNS, long_scores
from tests.annotation.conftest import dialogue, pairwise, person

pytestmark = pytest.mark.django_db


def test_long_scores_holds_every_human_answer_and_llm_score(
    campaign_factory: Callable[..., Campaign],
) -> None:
    campaign = campaign_factory(
        rows=[
            dialogue("t1"),
            dialogue("t2", system="unicrs", persona={"emotion": "Trust", "age_group": "Teens"}),
            pairwise("p1"),
        ]
    )
    manner = campaign.rubric.dimensions.get(key="manner")
    better = campaign.rubric.dimensions.get(key="better_response")
    x, y = person("x", "annotators"), person("y", "annotators")
    for value in (4, 2):
        held = queue.next_for(x, campaign)
        assert held is not None
        queue.submit(x, held.transcript, [queue.Answer(manner, value)], 100)
    pair = queue.next_for(x, campaign)
    assert pair is not None and pair.transcript.external_id == "p1"
    queue.submit(x, pair.transcript, [queue.Answer(better, 1)], 100)
    assert queue.next_for(y, campaign) is not None  # held, not submitted: not a score
    t1 = campaign.transcripts.get(external_id="t1")
    LLMScore.objects.create(transcript=t1, dimension=manner, evaluator="gpt", score=3.5)

    with CaptureQueriesContext(connection) as captured:
        frame = long_scores(campaign)
    assert len(captured) == 3
    assert list(frame.columns) == list(COLUMNS)
    rows = sorted(frame.itertuples(index=False, name=None))
    assert rows == [
        ("p1", "x", 1.0, "better_response", "", "", "", "", "", False),
        ("t1", "gpt", 3.5, "manner", "kbrd", "redial", "en", "Curiosity", "Adults", True),
        ("t1", "x", 4.0, "manner", "kbrd", "redial", "en", "Curiosity", "Adults", False),
        ("t2", "x", 2.0, "manner", "unicrs", "redial", "en", "Trust", "Teens", False),
    ]
    assert str(frame["score"].dtype) == "float64" and str(frame["is_llm"].dtype) == "bool"


def test_an_empty_campaign_gives_an_empty_frame_with_the_columns(campaign: Campaign) -> None:
    frame = long_scores(campaign)
    assert frame.empty and list(frame.columns) == list(COLUMNS)
