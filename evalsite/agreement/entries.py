"""The statistics of an agreement block as entries, and the notes that say why any is null.

An `Entry` holds one statistic's estimate, the reason it has none, how to resample it, and its
interval or the reason for none. `entry_notes` turns the reasons into sentences: fields null for
the same reason share one sentence, and an α resting on a single item is flagged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evalsite.agreement.common import ResampledStatistic, joined


@dataclass
class Entry:
    """One statistic of a report block: its estimate, why it has none, and how to resample it."""

    fields: str
    interval_field: str
    value: float | None = None
    pvalue: float | None = None
    reason: str | None = None
    statistic: ResampledStatistic | None = None
    interval: tuple[float, float] | None = None
    interval_reason: str | None = None


def entry_notes(entries: Iterable[Entry]) -> list[str]:
    """One sentence per reason for null fields, and one for α values that rest on one item."""
    notes: list[str] = []
    single: list[str] = []
    by_reason: dict[str, list[str]] = {}
    for entry in entries:
        if entry.reason is not None:
            by_reason.setdefault(entry.reason, []).extend([entry.fields, entry.interval_field])
        elif entry.interval_reason is not None:
            by_reason.setdefault(entry.interval_reason, []).append(entry.interval_field)
        usable = None if entry.statistic is None else entry.statistic.n_usable
        if entry.fields.startswith("alpha.") and entry.value is not None and usable == 1:
            single.append(entry.fields)
    if single:
        notes.append(
            f"{joined(single)} {'rests' if len(single) == 1 else 'rest'} on a single item: "
            "α on one item means nothing (ratings that differ on it give 0)."
        )
    for reason, fields in by_reason.items():
        verb = "is" if len(fields) == 1 else "are"
        notes.append(f"{joined(fields)} {verb} null: {reason}.")
    return notes
