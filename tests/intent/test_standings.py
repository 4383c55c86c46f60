"""Ranks with ties, and neighbours the paired bootstrap separates or not."""

from __future__ import annotations

from intent.models import Submission, Team
from intent.standings import ranks, standings
from intent.submissions import submit_file
from tests.intent.conftest import predictions_csv


def test_equal_scores_share_the_better_rank() -> None:
    assert ranks([0.9, 0.9, 0.8, 0.7, 0.7]) == [1, 1, 3, 4, 4]
    assert ranks([]) == []


def test_a_team_is_ranked_by_its_best_submission(team: Team, rival_team: Team) -> None:
    submit_file(team, None, predictions_csv(0), "worst.csv")
    best = submit_file(team, None, predictions_csv(12), "best.csv")
    submit_file(rival_team, None, predictions_csv(12), "also-best.csv")
    rows = standings(team.track)
    assert [row.submission.team.name for row in rows] == ["Alpha", "Beta"]
    assert rows[0].submission == best
    # Equal F: the same rank, and the difference is exactly 0.
    assert [row.rank for row in rows] == [1, 1]
    assert rows[1].tied_with_above
    assert rows[0].against_above is None


def test_far_apart_neighbours_are_not_marked(team: Team, rival_team: Team) -> None:
    submit_file(team, None, predictions_csv(12), "a.csv")
    submit_file(rival_team, None, predictions_csv(0), "b.csv")
    rows = standings(team.track)
    assert [row.rank for row in rows] == [1, 2]
    assert rows[1].against_above is not None and not rows[1].tied_with_above
    assert Submission.objects.count() == 2
