"""The leaderboard: each team's best submission on the track's current part, ranked by official F.

Ties share a rank (1, 1, 3). Each row is compared with the row above it by the paired
bootstrap on the same utterances; when the interval of the difference includes 0 the two are
marked as not separable, so a reader does not take an order of noise for a ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

from intent import evaluation
from intent.bootstrap import PairedTest
from intent.models import Submission, Track


@dataclass(frozen=True)
class Standing:
    rank: int
    submission: Submission
    official_f: float
    against_above: PairedTest | None

    @property
    def tied_with_above(self) -> bool:
        return self.against_above is not None and self.against_above.includes_zero


def _score_of(submission: Submission, part: str) -> float | None:
    return submission.public_f if part == "public" else submission.private_f


def best_per_team(track: Track, part: str) -> list[tuple[Submission, float]]:
    best: dict[int, tuple[Submission, float]] = {}
    submissions = Submission.objects.filter(
        team__track=track, status=Submission.Status.SCORED
    ).select_related("team")
    for submission in submissions.order_by("created_at", "pk"):
        value = _score_of(submission, part)
        if value is None:
            continue
        held = best.get(submission.team_id)
        if held is None or value > held[1]:
            best[submission.team_id] = (submission, value)
    return sorted(best.values(), key=lambda pair: (-pair[1], pair[0].team.name))


def ranks(values: list[float]) -> list[int]:
    """Competition ranks of values sorted best first: equal values share the better rank."""
    out: list[int] = []
    for position, value in enumerate(values):
        out.append(out[-1] if position and value == values[position - 1] else position + 1)
    return out


def standings(track: Track) -> list[Standing]:
    part = evaluation.leaderboard_part(track)
    rows = best_per_team(track, part)
    gold = evaluation.gold_part(track, part)
    result: list[Standing] = []
    for (submission, value), rank in zip(rows, ranks([v for _, v in rows]), strict=True):
        above = None
        if result:
            above = evaluation.compare(
                gold, result[-1].submission.predictions, submission.predictions
            )
        result.append(Standing(rank, submission, value, above))
    return result
