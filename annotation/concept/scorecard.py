"""The CONCEPT scorecard: transcripts grouped and measured, and the inputs of one annotation
campaign gathered from the database.

``scorecard`` is pure: it reads plain transcript rows (see ``annotation.concept.facts``) and
returns one JSON-safe row per group (``annotation.concept.card.as_card``). ``gather_inputs``
reads a campaign's dialogues, the mean submitted human answer per transcript and dimension,
every LLM score and the catalogs of its datasets in a handful of queries;
``campaign_scorecard`` measures them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Avg

from annotation.concept.card import HUMAN, as_card
from annotation.concept.catalog_store import catalogs_for
from annotation.concept.catalogs import Catalog, CatalogChoice
from annotation.concept.facts import TranscriptFacts, group_value, row_field, transcript_facts
from annotation.concept.measures import coordinate_personas, measure_group, rater_sources
from annotation.concept.mentions import text_values
from annotation.models import Assignment, Campaign, Dimension, LLMScore, Response, Transcript

DEFAULT_BY = ("system", "dataset")
# Grouping by any of these names puts a transcript in one group per stated preference.
PREFERENCE_GROUPINGS = frozenset({"preference", "preferences", "attribute", "genre"})
# The transcript fields the measures read (``annotation.concept.facts`` names them).
ROW_FIELDS = (
    "external_id",
    "system",
    "dataset",
    "persona_emotion",
    "persona_age_group",
    "preferences",
    "turns",
    "accepted",
    "accepted_items",
    "accepted_turn",
    "metadata",
)


def _group_keys(row: Any, by: Sequence[str]) -> list[tuple[str | None, ...]]:
    choices: list[list[str | None]] = []
    for name in by:
        if name in PREFERENCE_GROUPINGS:
            preferences = list(dict.fromkeys(text_values(row_field(row, "preferences"))))
            choices.append(list(preferences) if preferences else [None])
        else:
            choices.append([group_value(row, name)])
    return list(itertools.product(*choices))


def _sort_key(key: tuple[str | None, ...]) -> tuple[tuple[bool, str], ...]:
    return tuple((value is None, value or "") for value in key)


def scorecard(
    rows: Iterable[Any],
    *,
    by: Sequence[str] = DEFAULT_BY,
    catalog: CatalogChoice = None,
    human_scores: Mapping[str, Mapping[str, float]] | None = None,
    llm_scores: Mapping[str, Mapping[str, Mapping[str, float]]] | None = None,
) -> list[dict[str, Any]]:
    """The CONCEPT measures per group of transcripts, one JSON-safe dict per group.

    ``by`` names transcript fields or metadata keys; ``preference`` (or ``attribute``,
    ``genre``) puts a transcript in one group per stated preference. ``catalog`` is one
    ``Catalog`` for every transcript or a mapping from dataset to ``Catalog``.
    ``human_scores`` maps transcript id → {dimension: mean human score}; ``llm_scores`` maps
    evaluator → transcript id → {dimension: score}. A measure that cannot be computed is None,
    and ``notes`` says why.
    """
    sources = rater_sources(human_scores, llm_scores)
    groups: dict[tuple[str | None, ...], list[TranscriptFacts]] = {}
    for row in rows:
        facts = transcript_facts(row, catalog)
        for key in _group_keys(row, by):
            groups.setdefault(key, []).append(facts)
    cards = []
    for key in sorted(groups, key=_sort_key):
        members = groups[key]
        measured = measure_group(members, sources)
        coordinate_personas(members, sources, measured)
        cards.append(as_card(measured, dict(zip(by, key, strict=True))))
    return cards


# Gathering a campaign -------------------------------------------------------------------------


@dataclass(frozen=True)
class ScorecardInputs:
    """What ``scorecard`` reads, gathered from one campaign."""

    rows: list[dict[str, Any]]
    human_scores: dict[str, dict[str, float]]
    llm_scores: dict[str, dict[str, dict[str, float]]]
    catalogs: dict[str, Catalog]
    catalog_names: dict[str, str]

    @property
    def datasets(self) -> list[str]:
        return sorted({str(row["dataset"]) for row in self.rows})

    @property
    def datasets_without_catalog(self) -> list[str]:
        return [dataset for dataset in self.datasets if dataset not in self.catalogs]

    @property
    def sources(self) -> list[str]:
        """The rater sources of the scorecard: people, then each LLM evaluator."""
        return [HUMAN, *(f"llm_{evaluator}" for evaluator in sorted(self.llm_scores))]


def gather_inputs(campaign: Campaign) -> ScorecardInputs:
    """The campaign's dialogue transcripts, the mean submitted human answer per transcript and
    dimension, every LLM score by evaluator, and the catalogs of its datasets.

    Pairwise items and pairwise questions are left out: the scorecard measures dialogues, each
    once, as it now stands (a version a re-import replaced is left out).
    Answers still held or skipped do not count, as in the agreement report.
    """
    rows = list(
        campaign.transcripts.filter(kind=Transcript.Kind.DIALOGUE, superseded_at__isnull=True)
        .order_by("position", "pk")
        .values(*ROW_FIELDS)
    )
    answers = (
        Response.objects.filter(
            assignment__campaign=campaign,
            assignment__status=Assignment.Status.SUBMITTED,
            transcript__kind=Transcript.Kind.DIALOGUE,
            transcript__superseded_at__isnull=True,
        )
        .exclude(dimension__kind__in=[Dimension.Kind.PAIRWISE, Dimension.Kind.TEXT])
        .order_by()
        .values_list("transcript__external_id", "dimension__key")
        .annotate(mean=Avg("value"))
    )
    human: dict[str, dict[str, float]] = {}
    for external_id, dimension, mean in answers:
        human.setdefault(external_id, {})[dimension] = float(mean)
    scores = (
        LLMScore.objects.filter(
            transcript__campaign=campaign,
            transcript__kind=Transcript.Kind.DIALOGUE,
            transcript__superseded_at__isnull=True,
        )
        .exclude(dimension__kind__in=[Dimension.Kind.PAIRWISE, Dimension.Kind.TEXT])
        .order_by()
        .values_list("evaluator", "transcript__external_id", "dimension__key", "score")
    )
    machine: dict[str, dict[str, dict[str, float]]] = {}
    for evaluator, external_id, dimension, score in scores:
        machine.setdefault(evaluator, {}).setdefault(external_id, {})[dimension] = score
    found = catalogs_for({str(row["dataset"]) for row in rows})
    return ScorecardInputs(
        rows=rows,
        human_scores=human,
        llm_scores=machine,
        catalogs={dataset: built for dataset, (_, built) in found.items()},
        catalog_names={dataset: name for dataset, (name, _) in found.items()},
    )


def campaign_scorecard(
    inputs: ScorecardInputs, by: Sequence[str] = DEFAULT_BY
) -> list[dict[str, Any]]:
    """The scorecard rows of the gathered campaign, grouped ``by`` transcript columns.

    Human scores always take part (their measures are null, with a note, before anybody has
    annotated), so that human and LLM columns sit side by side from the start.
    """
    return scorecard(
        inputs.rows,
        by=tuple(by),
        catalog=inputs.catalogs,
        human_scores=inputs.human_scores,
        llm_scores=inputs.llm_scores,
    )
