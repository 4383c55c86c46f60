"""The CONCEPT scorecard page of an annotation campaign, and the transcripts behind its numbers.

Both pages are for coordinators. Every number on the scorecard links to the transcript list
filtered to the group it was computed from (system, dataset, persona; accepted transcripts for
the measures taken among them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from annotation import concept, concept_report
from annotation.concept_report import HUMAN, ScorecardInputs
from annotation.models import Campaign, Transcript
from evalsite.roles import coordinator_required

PAGE_SIZE = 50
FILTERS = ("system", "dataset", "persona_emotion", "persona_age_group")
ACCEPTED_FILTER = "accepted"
PERSONA_LABELS = {
    "persona_emotion": gettext_lazy("Persona (emotion)"),
    "persona_age_group": gettext_lazy("Age group"),
}
ABILITY_LABELS = {
    "quality": gettext_lazy("Quality"),
    "sincerity": gettext_lazy("Sincerity"),
    "identity": gettext_lazy("Identity"),
    "cooperation": gettext_lazy("Cooperation"),
    "social_awareness": gettext_lazy("Social awareness"),
    "coordination": gettext_lazy("Coordination"),
}
# One colour per ability, the same in the chart and its legend; dark enough for white text.
ABILITY_COLOURS = {
    "quality": "#2563eb",
    "sincerity": "#0891b2",
    "identity": "#7c3aed",
    "cooperation": "#059669",
    "social_awareness": "#d97706",
    "coordination": "#db2777",
}
SCALE_TOP = 5.0
# The chart's geometry in SVG units; the picture scales with the page through its viewBox.
PLOT_HEIGHT = 160
PLOT_TOP = 12
AXIS_LEFT = 30
BAR_WIDTH = 14
BAR_GAP = 2
GROUP_GAP = 28
LABEL_SPACE = 34


# Formatting -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measure:
    """A row of the scorecard table: a scorecard key and how to show its value."""

    key: str
    label: str
    kind: str
    among_accepted: bool = False
    components: tuple[str, ...] = ()


@dataclass(frozen=True)
class Cell:
    text: str
    url: str
    note: str


@dataclass(frozen=True)
class MeasureRow:
    measure: Measure
    cells: list[Cell]


def shown(value: Any, kind: str) -> str:
    """A measure's value as the page shows it: rates as percentages, means and scores with two
    decimals, counts whole; a measure that cannot be computed is a dash."""
    if value is None:
        return "—"
    if kind == "count":
        return str(int(value))
    if kind == "rate":
        return f"{100 * float(value):.1f}%"
    if kind == "ratio":
        return f"{float(value):.3f}"
    return f"{float(value):.2f}"


def transcripts_url(campaign: Campaign, filters: Mapping[str, Any]) -> str:
    query = {name: "" if value is None else str(value) for name, value in filters.items()}
    url = reverse("concept:transcripts", args=[campaign.pk])
    return f"{url}?{urlencode(query)}" if query else url


def source_label(source: str) -> str:
    if source == HUMAN:
        return _("people")
    return _("LLM %(evaluator)s") % {"evaluator": source.removeprefix("llm_")}


# The table ------------------------------------------------------------------------------------


def _components(template: str, source: str = HUMAN) -> tuple[str, ...]:
    return tuple(part.format(source=source) for part in concept.COMPONENTS.get(template, ()))


def quality_measures() -> list[Measure]:
    measures = [
        Measure("n", _("Transcripts"), "count"),
        Measure("accepted", _("Accepted"), "count", among_accepted=True),
        Measure("acceptance_rate", _("Acceptance rate (AR)"), "rate"),
        Measure("avg_turns_to_accept", _("Average turns to acceptance (AT)"), "mean", True),
    ]
    for module, name in (("rec", _("recommender")), ("dialogue", _("dialogue"))):
        for k in concept.SR_CUTOFFS:
            label = _("Success rate SR@%(k)s (%(module)s)") % {"k": k, "module": name}
            measures.append(Measure(f"sr_{module}@{k}", label, "rate"))
    measures.append(
        Measure(
            "quality_score", _("Quality score"), "score", components=_components("quality_score")
        )
    )
    return measures


def sincerity_measures(sources: Sequence[str]) -> list[Measure]:
    measures = [
        Measure("items_named", _("Items named"), "count"),
        Measure("items_nonexistent", _("Items not in the catalog"), "count"),
        Measure("nonexistent_item_ratio", _("Non-existent item ratio"), "rate"),
        Measure(
            "deceptive_judged_catalog",
            _("Accepted transcripts judged by the catalog"),
            "count",
            True,
        ),
        Measure("deceptive_ratio_catalog", _("Deceptive ratio (catalog)"), "rate", True),
    ]
    for source in sources:
        label = _("Deceptive ratio (%(source)s)") % {"source": source_label(source)}
        measures.append(Measure(f"deceptive_ratio_{source}", label, "rate", True))
    measures.append(
        Measure(
            "sincerity_score",
            _("Sincerity score"),
            "score",
            components=_components("sincerity_score"),
        )
    )
    return measures


def rater_measures(
    source: str, dimensions: Sequence[str], names: Mapping[str, str]
) -> list[Measure]:
    measures = [
        Measure(
            f"{source}_{dimension}",
            names.get(dimension) or dimension.replace("_", " ").capitalize(),
            "mean",
        )
        for dimension in dimensions
    ]
    for label, template in (
        (_("Identity score"), "identity_score_{source}"),
        (_("Cooperation score"), "cooperation_score_{source}"),
        (_("Social awareness score"), "social_awareness_score_{source}"),
        (_("Coordination score (emotions)"), "coordination_score_{source}"),
    ):
        measures.append(
            Measure(
                template.format(source=source),
                label,
                "score",
                components=_components(template, source),
            )
        )
    measures.append(
        Measure(
            f"coordination_score_{source}_age_group",
            _("Coordination score (age groups)"),
            "score",
            components=(f"coordination_{source}",),
        )
    )
    return measures


def _dimensions_of(cards: Sequence[Mapping[str, Any]], source: str) -> list[str]:
    """The rubric dimensions the cards hold for ``source``: CONCEPT's eight, then any other."""
    prefix = f"{source}_"
    found = {
        key.removeprefix(prefix)
        for card in cards
        for key, value in card.items()
        if key.startswith(prefix) and not isinstance(value, Mapping)
    }
    extra = sorted(found - set(concept.RUBRIC_DIMENSIONS))
    return [*concept.RUBRIC_DIMENSIONS, *extra]


def measure_rows(
    campaign: Campaign, cards: Sequence[Mapping[str, Any]], measures: Sequence[Measure]
) -> list[MeasureRow]:
    rows = []
    for measure in measures:
        cells = []
        for card in cards:
            filters: dict[str, Any] = {name: card.get(name) for name in concept_report.DEFAULT_BY}
            if measure.among_accepted:
                filters[ACCEPTED_FILTER] = "yes"
            value = card.get(measure.key)
            cells.append(
                Cell(
                    shown(value, measure.kind),
                    transcripts_url(campaign, filters),
                    card.get("notes", {}).get(measure.key, ""),
                )
            )
        rows.append(MeasureRow(measure, cells))
    return rows


def table_sections(
    campaign: Campaign, inputs: ScorecardInputs, cards: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    language = get_language()
    names = {
        dimension.key: dimension.name(language) for dimension in campaign.rubric.dimensions.all()
    }
    sections = [
        {"title": _("Quality"), "rows": measure_rows(campaign, cards, quality_measures())},
        {
            "title": _("Sincerity"),
            "rows": measure_rows(campaign, cards, sincerity_measures(inputs.sources)),
        },
    ]
    for source in inputs.sources:
        measures = rater_measures(source, _dimensions_of(cards, source), names)
        sections.append(
            {
                "title": _("Rubric scores and abilities: %(source)s")
                % {"source": source_label(source)},
                "rows": measure_rows(campaign, cards, measures),
            }
        )
    return sections


# The chart ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    ability: str
    label: str
    colour: str
    x: float
    centre: float
    y: float
    height: float
    text: str
    note: str


@dataclass(frozen=True)
class BarGroup:
    system: str
    url: str
    label_x: float
    bars: list[Bar]


def ability_chart(
    campaign: Campaign, systems: Sequence[Mapping[str, Any]], source: str
) -> dict[str, Any]:
    """Bars of the six ability scores (0–5) per system, laid out for an inline SVG."""
    abilities = concept_report.ability_keys(source)
    group_width = len(abilities) * (BAR_WIDTH + BAR_GAP) - BAR_GAP
    groups = []
    for index, card in enumerate(systems):
        left = AXIS_LEFT + GROUP_GAP / 2 + index * (group_width + GROUP_GAP)
        bars = []
        for position, (ability, key) in enumerate(abilities):
            value = card.get(key)
            scaled = 0.0 if value is None else min(max(float(value), 0.0), SCALE_TOP) / SCALE_TOP
            height = round(PLOT_HEIGHT * scaled, 1)
            bars.append(
                Bar(
                    ability=ability,
                    label=str(ABILITY_LABELS[ability]),
                    colour=ABILITY_COLOURS[ability],
                    x=round(left + position * (BAR_WIDTH + BAR_GAP), 1),
                    centre=round(left + position * (BAR_WIDTH + BAR_GAP) + BAR_WIDTH / 2, 1),
                    y=round(PLOT_TOP + PLOT_HEIGHT - height, 1),
                    height=height,
                    text=shown(value, "score"),
                    note=card.get("notes", {}).get(key, ""),
                )
            )
        system = "" if card.get("system") is None else str(card["system"])
        groups.append(
            BarGroup(
                system=system,
                url=transcripts_url(campaign, {"system": card.get("system")}),
                label_x=round(left + group_width / 2, 1),
                bars=bars,
            )
        )
    width = AXIS_LEFT + len(groups) * (group_width + GROUP_GAP) + BAR_GAP
    ticks = [
        {"value": value, "y": round(PLOT_TOP + PLOT_HEIGHT * (1 - value / SCALE_TOP), 1)}
        for value in range(int(SCALE_TOP) + 1)
    ]
    return {
        "groups": groups,
        "width": width,
        "height": PLOT_TOP + PLOT_HEIGHT + LABEL_SPACE,
        "baseline": PLOT_TOP + PLOT_HEIGHT,
        "mark_y": PLOT_TOP + PLOT_HEIGHT - 3,
        "tick_x": AXIS_LEFT - 6,
        "label_y": PLOT_TOP + PLOT_HEIGHT + 18,
        "axis_x": AXIS_LEFT,
        "bar_width": BAR_WIDTH,
        "ticks": ticks,
        "legend": [
            {"label": ABILITY_LABELS[ability], "colour": ABILITY_COLOURS[ability]}
            for ability, _key in abilities
        ],
    }


# Persona breakdowns ---------------------------------------------------------------------------


def persona_breakdowns(
    campaign: Campaign,
    inputs: ScorecardInputs,
    systems: Sequence[Mapping[str, Any]],
    source: str,
) -> list[dict[str, Any]]:
    """Per system and persona field: each persona group's ability means, with the
    coordination (range / mean per ability, their mean, and the 0–5 score) beside them."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for row in inputs.rows:
        for persona_field in concept.PERSONA_FIELDS:
            counts[(str(row["system"]), persona_field, str(row[persona_field]))] += 1
    breakdowns = []
    for card in systems:
        system = "" if card.get("system") is None else str(card["system"])
        details = card.get(f"coordination_{source}") or {}
        tables = []
        for persona_field in concept.PERSONA_FIELDS:
            found = details.get(persona_field)
            if found is None:
                continue
            rows = []
            for group in found["groups"]:
                filters = {"system": card.get("system"), persona_field: group}
                url = transcripts_url(campaign, filters)
                rows.append(
                    {
                        "group": group,
                        "n": counts[(system, persona_field, group)],
                        "url": url,
                        "cells": [
                            shown(found["group_means"][ability].get(group), "score")
                            for ability in concept.COORDINATED_ABILITIES
                        ],
                    }
                )
            tables.append(
                {
                    "field": persona_field,
                    "label": PERSONA_LABELS[persona_field],
                    "rows": rows,
                    "ratios": [
                        {
                            "text": shown(found["measures"][ability], "ratio"),
                            "note": found["notes"].get(ability, ""),
                        }
                        for ability in concept.COORDINATED_ABILITIES
                    ],
                    "value": shown(found["value"], "ratio"),
                    "score": shown(found["score"], "score"),
                    "left_out": counts[(system, persona_field, "")],
                }
            )
        breakdowns.append(
            {
                "system": system,
                "url": transcripts_url(campaign, {"system": card.get("system")}),
                "tables": tables,
            }
        )
    return breakdowns


# Views ----------------------------------------------------------------------------------------


def _default_source(inputs: ScorecardInputs) -> str:
    if inputs.human_scores or not inputs.llm_scores:
        return HUMAN
    return inputs.sources[1]


@coordinator_required
def scorecard(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The CONCEPT scorecard: every measure per system × dataset, the six abilities per system,
    and the persona breakdowns with their coordination."""
    campaign = get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)
    inputs = concept_report.gather_inputs(campaign)
    source = request.GET.get("source", "")
    if source not in inputs.sources:
        source = _default_source(inputs)
    groups = concept_report.campaign_scorecard(inputs)
    systems = concept_report.campaign_scorecard(inputs, by=("system",))
    coordinated = [str(ABILITY_LABELS[ability]) for ability in concept.COORDINATED_ABILITIES]
    return render(
        request,
        "annotation/concept/scorecard.html",
        {
            "campaign": campaign,
            "transcript_count": len(inputs.rows),
            "groups": groups,
            "sections": table_sections(campaign, inputs, groups),
            "chart": ability_chart(campaign, systems, source),
            "breakdowns": persona_breakdowns(campaign, inputs, systems, source),
            "coordinated_abilities": coordinated,
            "source": source,
            "source_label": source_label(source),
            "sources": [
                {"key": key, "label": source_label(key), "url": "?" + urlencode({"source": key})}
                for key in inputs.sources
            ],
            "catalogs": [
                {"dataset": dataset, "catalog": inputs.catalog_names.get(dataset)}
                for dataset in inputs.datasets
            ],
            "all_url": transcripts_url(campaign, {}),
        },
    )


def _acceptance(transcripts: Any, wanted: bool) -> Q:
    """Acceptance as the scorecard reads it: the stored outcome, else a user turn with the
    [END] mark. The mark cannot be queried portably, so only transcripts without a stored
    outcome (few: JSONL lines without one) are read here."""
    marked = [
        row["pk"]
        for row in transcripts.filter(accepted__isnull=True).values("pk", "accepted", "turns")
        if concept.is_accepted(row)
    ]
    if wanted:
        return Q(accepted=True) | Q(pk__in=marked)
    return Q(accepted=False) | (Q(accepted__isnull=True) & ~Q(pk__in=marked))


@coordinator_required
def transcripts(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign's dialogues filtered by system, dataset, persona and acceptance."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    found = campaign.transcripts.filter(kind=Transcript.Kind.DIALOGUE)
    applied: list[tuple[str, str]] = []
    for name in FILTERS:
        if name in request.GET:
            found = found.filter(**{name: request.GET[name]})
            applied.append((name, request.GET[name]))
    accepted = request.GET.get(ACCEPTED_FILTER)
    if accepted in ("yes", "no"):
        found = found.filter(_acceptance(found, accepted == "yes"))
        applied.append((ACCEPTED_FILTER, accepted))
    page = Paginator(found.order_by("position", "pk"), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "annotation/concept/transcripts.html",
        {
            "campaign": campaign,
            "page": page,
            "applied": applied,
            "total": page.paginator.count,
        },
    )
