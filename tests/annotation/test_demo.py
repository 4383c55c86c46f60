from __future__ import annotations

from io import StringIO

import pytest

from annotation import demo
from annotation.models import Campaign, LLMScore, Transcript

pytestmark = pytest.mark.django_db


def test_the_demo_campaign_can_be_seeded_again_without_duplicates() -> None:
    out = StringIO()
    demo.seed(out)
    demo.seed(out)
    campaign = Campaign.objects.get(name=demo.DEMO_CAMPAIGN)
    assert campaign.transcripts.count() == len(demo.DEMO_TRANSCRIPTS) == 8
    assert Transcript.objects.filter(kind="pairwise").count() == 2
    assert LLMScore.objects.count() == 6 * 8 + 1
    assert campaign.transcripts.get(external_id="demo-001").gold == {"manner": 5}
    assert "8 transcripts" in out.getvalue()
