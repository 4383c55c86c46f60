"""A track's labelled utterances: one split at a time, all or nothing.

Uploading a split replaces what the track held for it, in one transaction, once every line of
the file is valid (`intent.files.read_dataset` names each problem). An id may be in only one
split of a track. The test split is cut into a public part, scored on the leaderboard while the
track is open, and a private part, scored on the final leaderboard; the cut is a shuffle seeded
by the track, so uploading the same file again gives the same parts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.db import transaction
from django.utils.translation import gettext as _

from intent.files import FileProblem, IntentFileError, LabelledUtterance, read_dataset
from intent.models import Track, Utterance


def parts_of(track: Track, count: int) -> list[str]:
    """The part of each of ``count`` test utterances, in file order."""
    public = max(1, min(count - 1, round(count * track.public_share))) if count > 1 else count
    order = list(range(count))
    random.Random(f"intent-track-{track.pk}").shuffle(order)
    parts = [Utterance.Part.PRIVATE.value] * count
    for index in order[:public]:
        parts[index] = Utterance.Part.PUBLIC.value
    return parts


def _clashes(track: Track, split: str, rows: Sequence[LabelledUtterance], source: str) -> None:
    others = set(
        track.utterances.exclude(split=split)
        .filter(uid__in=[row.id for row in rows])
        .values_list("uid", flat=True)
    )
    problems = [
        FileProblem(
            source, row.line, "id", _("%(id)s is already in another split") % {"id": row.id}
        )
        for row in rows
        if row.id in others
    ]
    if problems:
        raise IntentFileError(problems[:20], len(problems))


def import_split(track: Track, split: str, text: str, source: str) -> int:
    """Replace ``split`` of ``track`` with the utterances of ``text``; returns how many."""
    rows = read_dataset(text, source, track.label_tuple)
    _clashes(track, split, rows, source)
    parts = parts_of(track, len(rows)) if split == Utterance.Split.TEST else [""] * len(rows)
    with transaction.atomic():
        track.utterances.filter(split=split).delete()
        Utterance.objects.bulk_create(
            Utterance(
                track=track,
                uid=row.id,
                query=row.query,
                label=row.label,
                split=split,
                part=part,
                position=position,
            )
            for position, (row, part) in enumerate(zip(rows, parts, strict=True))
        )
    return len(rows)


def split_counts(track: Track) -> dict[str, int]:
    counts = dict.fromkeys(Utterance.Split.values, 0)
    for split in track.utterances.values_list("split", flat=True):
        counts[split] += 1
    return counts
