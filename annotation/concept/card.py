"""The scorecard row: the typed measures of one group of transcripts, and the JSON-safe dict
they are published as.

``GroupScores`` and ``SourceScores`` hold what ``annotation.concept.measures`` computes, so a
misspelt measure fails the type check. ``as_card`` turns them into the row that the command
prints, the pages show and the CONCEPT sheet writes: every key of that row, and so every
column header of the sheet, is named here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

SR_CUTOFFS = (3, 5, 10)
SUCCESS_MODULES = ("rec", "dialogue")
HUMAN = "human"
NOTES = "notes"
PERSONA_EMOTION = "persona_emotion"
PERSONA_AGE_GROUP = "persona_age_group"
# The six ability scores (0–5) of the paper, as row keys for one rater source. Reliability has
# no score (see docs/concept.md); Sincerity stands in.
ABILITIES = ("quality", "sincerity", "identity", "cooperation", "social_awareness", "coordination")
# Which measures each composite is made of, to show beside it; ``{source}`` is ``human`` or
# ``llm_<evaluator>``.
COMPONENTS: Mapping[str, tuple[str, ...]] = {
    "quality_score": ("acceptance_rate",),
    "sincerity_score": ("deceptive_ratio_catalog", "nonexistent_item_ratio"),
    "identity_score_{source}": ("{source}_persuasiveness", "deceptive_ratio_catalog"),
    "cooperation_score_{source}": (
        "{source}_manner",
        "{source}_quality",
        "{source}_relevance",
        "sincerity_score",
    ),
    "social_awareness_score_{source}": ("{source}_social_awareness",),
    "coordination_score_{source}": ("coordination_{source}",),
}


class Coordination(TypedDict):
    """How evenly the persona groups of one persona field were served, per measure."""

    persona_field: str
    groups: list[str]
    measures: dict[str, float | None]
    group_means: dict[str, dict[str, float | None]]
    value: float | None
    score: float | None
    notes: dict[str, str]


@dataclass
class SourceScores:
    """The measures from one rater source, ``human`` or ``llm_<evaluator>``, in one group."""

    name: str
    # Transcripts of the group with at least one score from this source.
    scored: int = 0
    dimensions: dict[str, float | None] = field(default_factory=dict)
    deceptive_ratio: float | None = None
    deceptive_judged: int = 0
    identity_score: float | None = None
    cooperation_score: float | None = None
    social_awareness_score: float | None = None
    # By persona field; None where coordination is not computed (inside a persona group).
    coordination: dict[str, Coordination] | None = None


@dataclass
class GroupScores:
    """Every CONCEPT measure of one group of transcripts; ``notes`` says why one is None."""

    n: int
    notes: dict[str, str] = field(default_factory=dict)
    # Concept4CRS persona × attribute cells: transcripts repeating a cell already in the group,
    # and repeats dropped at import; None when no transcript has a cell.
    duplicate_cells: int | None = None
    duplicate_cells_dropped: int | None = None
    accepted: int = 0
    acceptance_rate: float = 0.0
    avg_turns_to_accept: float | None = None
    # By (module, cutoff), in the order of SUCCESS_MODULES and SR_CUTOFFS.
    success_rates: dict[tuple[str, int], float | None] = field(default_factory=dict)
    items_named: int | None = None
    items_nonexistent: int | None = None
    nonexistent_item_ratio: float | None = None
    nonexistent_item_reason: str | None = None
    deceptive_judged_catalog: int = 0
    deceptive_ratio_catalog: float | None = None
    sources: list[SourceScores] = field(default_factory=list)
    deceptive_ratio_llm: float | None = None
    quality_score: float | None = None
    sincerity_score: float | None = None

    def source(self, name: str) -> SourceScores:
        return next(source for source in self.sources if source.name == name)


# The row's keys -------------------------------------------------------------------------------


def success_key(module: str, cutoff: int) -> str:
    return f"sr_{module}@{cutoff}"


def rubric_key(source: str, dimension: str) -> str:
    return f"{source}_{dimension}"


def deceptive_ratio_key(source: str) -> str:
    return f"deceptive_ratio_{source}"


def deceptive_judged_key(source: str) -> str:
    return f"deceptive_judged_{source}"


def identity_key(source: str) -> str:
    return f"identity_score_{source}"


def cooperation_key(source: str) -> str:
    return f"cooperation_score_{source}"


def social_awareness_key(source: str) -> str:
    return f"social_awareness_score_{source}"


def coordination_key(source: str) -> str:
    return f"coordination_{source}"


def coordination_score_key(source: str, persona_field: str = PERSONA_EMOTION) -> str:
    suffix = "_age_group" if persona_field == PERSONA_AGE_GROUP else ""
    return f"coordination_score_{source}{suffix}"


def ability_keys(source: str) -> list[tuple[str, str]]:
    """The six (ability, row key) pairs for one rater source."""
    keys = {
        "quality": "quality_score",
        "sincerity": "sincerity_score",
        "identity": identity_key(source),
        "cooperation": cooperation_key(source),
        "social_awareness": social_awareness_key(source),
        "coordination": coordination_score_key(source),
    }
    return [(ability, keys[ability]) for ability in ABILITIES]


# The published row ----------------------------------------------------------------------------


def _source_measures(source: SourceScores) -> dict[str, Any]:
    row: dict[str, Any] = {
        rubric_key(source.name, dimension): value for dimension, value in source.dimensions.items()
    }
    row[deceptive_ratio_key(source.name)] = source.deceptive_ratio
    # A source that scored nothing in the group judged nothing: no count either.
    row[deceptive_judged_key(source.name)] = source.deceptive_judged if source.scored else None
    return row


def as_card(scores: GroupScores, group: Mapping[str, str | None]) -> dict[str, Any]:
    """The JSON-safe row of one group: its ``group`` columns, every measure, then ``notes``."""
    card: dict[str, Any] = dict(group)
    card.update(
        n=scores.n,
        duplicate_cells=scores.duplicate_cells,
        duplicate_cells_dropped=scores.duplicate_cells_dropped,
        accepted=scores.accepted,
        acceptance_rate=scores.acceptance_rate,
        avg_turns_to_accept=scores.avg_turns_to_accept,
    )
    for (module, cutoff), rate in scores.success_rates.items():
        card[success_key(module, cutoff)] = rate
    card.update(
        items_named=scores.items_named,
        items_nonexistent=scores.items_nonexistent,
        nonexistent_item_ratio=scores.nonexistent_item_ratio,
        nonexistent_item_reason=scores.nonexistent_item_reason,
        deceptive_judged_catalog=scores.deceptive_judged_catalog,
        deceptive_ratio_catalog=scores.deceptive_ratio_catalog,
    )
    for source in scores.sources:
        card.update(_source_measures(source))
    if not any(source.name == HUMAN for source in scores.sources):
        card[deceptive_ratio_key(HUMAN)] = None
    card[deceptive_ratio_key("llm")] = scores.deceptive_ratio_llm
    card["quality_score"] = scores.quality_score
    card["sincerity_score"] = scores.sincerity_score
    for source in scores.sources:
        card[identity_key(source.name)] = source.identity_score
        card[cooperation_key(source.name)] = source.cooperation_score
        card[social_awareness_key(source.name)] = source.social_awareness_score
    for source in scores.sources:
        if source.coordination is None:
            continue
        card[coordination_key(source.name)] = source.coordination
        for persona_field in (PERSONA_EMOTION, PERSONA_AGE_GROUP):
            score = source.coordination[persona_field]["score"]
            card[coordination_score_key(source.name, persona_field)] = score
    card[NOTES] = scores.notes
    return card


def scalar_columns(cards: Sequence[Mapping[str, Any]], by: Sequence[str]) -> list[str]:
    """Every measure key of ``cards`` that holds a number (or null), in first-seen order; the
    coordination details (nested) and the notes are left out."""
    columns: dict[str, None] = {}
    for card in cards:
        for key, value in card.items():
            if key in by or key == NOTES or isinstance(value, Mapping | list):
                continue
            columns.setdefault(key)
    return list(columns)
