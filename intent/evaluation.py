"""A submission's predictions scored on a part of its track's test split.

While a track is open, the leaderboard and score pages use the public part; once it is closed,
the private part. Predictions are stored as ``{id: label}``; ``null`` (an endpoint's missing
answer) and a label outside the gold classes count as wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from intent.alignment import Aligned
from intent.bootstrap import PairedTest, official_f_interval, paired_test
from intent.models import Track, Utterance
from intent.scoring import IntentScores, score

# Fewer utterances than this give no interval.
MIN_FOR_INTERVAL = 10


@dataclass(frozen=True)
class GoldPart:
    labels: tuple[str, ...]
    ids: tuple[str, ...]
    gold: np.ndarray


def leaderboard_part(track: Track) -> str:
    return Utterance.Part.PUBLIC if track.phase == Track.Phase.OPEN else Utterance.Part.PRIVATE


def gold_part(track: Track, part: str) -> GoldPart:
    rows = list(
        track.utterances.filter(split=Utterance.Split.TEST, part=part)
        .order_by("position")
        .values_list("uid", "label")
    )
    present = {label for _, label in rows}
    labels = tuple(label for label in track.label_tuple if label in present)
    index = {label: i for i, label in enumerate(labels)}
    gold = np.array([index[label] for _, label in rows], dtype=np.int64)
    return GoldPart(labels, tuple(uid for uid, _ in rows), gold)


def aligned(part: GoldPart, predictions: Mapping[str, object]) -> Aligned:
    index = {label: i for i, label in enumerate(part.labels)}
    none = len(part.labels)
    pred = np.array(
        [index.get(str(predictions.get(uid)), none) for uid in part.ids], dtype=np.int64
    )
    return Aligned(part.labels, part.ids, part.gold, pred)


def official_f(part: GoldPart, predictions: Mapping[str, object]) -> float | None:
    if not part.ids:
        return None
    data = aligned(part, predictions)
    return score(data.labels, data.gold, data.pred).official_f


@dataclass(frozen=True)
class PartScores:
    scores: IntentScores
    interval: tuple[float, float] | None


def part_scores(part: GoldPart, predictions: Mapping[str, object]) -> PartScores | None:
    if not part.ids:
        return None
    data = aligned(part, predictions)
    interval = None
    if len(part.ids) >= MIN_FOR_INTERVAL:
        interval = official_f_interval(data.gold, data.pred, len(data.labels))
    return PartScores(score(data.labels, data.gold, data.pred), interval)


def compare(
    part: GoldPart, first: Mapping[str, object], second: Mapping[str, object]
) -> PairedTest:
    a, b = aligned(part, first), aligned(part, second)
    return paired_test(part.gold, a.pred, b.pred, len(part.labels))
