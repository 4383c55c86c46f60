"""The statistics of an agreement block as entries, and the notes that say why any is null.

An `Entry` holds one statistic's estimate, the reason it has none, how to resample it, and its
interval or the reason for none. `entry_notes` turns the reasons into sentences: fields null for
the same reason share one sentence, and an α resting on a single item is flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evalsite.agreement.common import ResampledStatistic
from evalsite.agreement.phrases import Listing, Phrase, gettext_noop


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
        message = (
            gettext_noop(
                "%(fields)s rests on a single item: α on one item means nothing (ratings that "
                "differ on it give 0)."
            )
            if len(single) == 1
            else gettext_noop(
                "%(fields)s rest on a single item: α on one item means nothing (ratings that "
                "differ on it give 0)."
            )
        )
        notes.append(Phrase(message, fields=Listing(single)))
    for reason, fields in by_reason.items():
        message = (
            gettext_noop("%(fields)s is null: %(reason)s.")
            if len(fields) == 1
            else gettext_noop("%(fields)s are null: %(reason)s.")
        )
        notes.append(Phrase(message, fields=Listing(fields), reason=reason))
    return notes


def setting_notes(
    *,
    llm: str | None,
    llm_scored: bool,
    llm_fields: Sequence[str],
    intervals_computed: bool,
    cluster_column: str | None,
    within: str | None,
    alt_test_note: str | None,
    alt_test_clustered: bool = False,
) -> list[str]:
    """The notes on how a block was computed: no LLM, no intervals, clusters, centring."""
    notes: list[str] = []
    if llm is None:
        notes.append(
            Phrase(
                gettext_noop(
                    "No rater is marked as the LLM, so every field comparing the LLM with "
                    "the humans is null (%(fields)s)."
                ),
                fields=", ".join(llm_fields),
            )
        )
    elif not llm_scored:
        notes.append(
            Phrase(
                gettext_noop(
                    "The LLM rater '%(llm)s' scored none of these items, so every field "
                    "comparing the LLM with the humans is null (%(fields)s)."
                ),
                llm=llm,
                fields=", ".join(llm_fields),
            )
        )
    if not intervals_computed:
        notes.append(
            Phrase(
                gettext_noop("Every CI is null: bootstrap resampling was turned off (0 resamples).")
            )
        )
    elif cluster_column is not None:
        notes.append(
            Phrase(
                gettext_noop(
                    "Every CI resamples whole clusters of items (column '%(column)s'), "
                    "keeping a cluster's items together."
                ),
                column=cluster_column,
            )
        )
    if within is not None:
        notes.append(
            Phrase(
                gettext_noop(
                    "Scores were centred within each value of '%(column)s' before α and the "
                    "correlations, so that differing means between them cannot inflate "
                    "pooled agreement; α is at the interval level on the centred scores."
                ),
                column=within,
            )
        )
    if alt_test_note is not None:
        notes.append(Phrase(gettext_noop("alt_test is null: %(reason)s."), reason=alt_test_note))
    elif alt_test_clustered and cluster_column is not None:
        notes.append(
            Phrase(
                gettext_noop(
                    "The alt-test's t-tests ran on the mean of each cluster's items (column "
                    "'%(column)s'), so that the items of one cluster count once."
                ),
                column=cluster_column,
            )
        )
    return notes
