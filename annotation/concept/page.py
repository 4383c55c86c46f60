"""What the CONCEPT pages show: the scorecard table, the ability chart's values, the persona
breakdowns, and the transcripts behind a number.

Plain functions that turn scorecard rows (``annotation.concept.card``) into template context;
the views in ``annotation.concept.views`` only look objects up and render. Every number links
to the transcript list filtered to the group it was computed from (system, dataset, persona;
accepted transcripts for the measures taken among them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from annotation.concept import card as keys
from annotation.concept.card import COMPONENTS, HUMAN, NOTES, Coordination, ability_keys
from annotation.concept.facts import PERSONA_FIELDS, is_accepted
from annotation.concept.figures import AbilityChart, BarValue, ChartSystem, ability_chart
from annotation.concept.measures import COORDINATED_ABILITIES, RUBRIC_DIMENSIONS
from annotation.concept.scorecard import DEFAULT_BY, ScorecardInputs, campaign_scorecard
from annotation.models import Campaign, Transcript
from evalsite.agreement.phrases import shown as shown_note

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


@dataclass(frozen=True)
class Section:
    title: str
    rows: list[MeasureRow]


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


def _notes(card: Mapping[str, Any]) -> Mapping[str, str]:
    notes: Mapping[str, str] = card.get(NOTES, {})
    return {key: shown_note(note) for key, note in notes.items()}


def _system(card: Mapping[str, Any]) -> str:
    return "" if card.get("system") is None else str(card["system"])


# The table ------------------------------------------------------------------------------------


def _components(template: str, source: str = HUMAN) -> tuple[str, ...]:
    return tuple(part.format(source=source) for part in COMPONENTS.get(template, ()))


def quality_measures() -> list[Measure]:
    measures = [
        Measure("n", _("Transcripts"), "count"),
        Measure("duplicate_cells", _("Repeating a persona × attribute cell"), "count"),
        Measure("duplicate_cells_dropped", _("Duplicated cells dropped at import"), "count"),
        Measure("accepted", _("Accepted"), "count", among_accepted=True),
        Measure("acceptance_rate", _("Acceptance rate (AR)"), "rate"),
        Measure("avg_turns_to_accept", _("Average turns to acceptance (AT)"), "mean", True),
    ]
    for module, name in (("rec", _("recommender")), ("dialogue", _("dialogue"))):
        for k in keys.SR_CUTOFFS:
            label = _("Success rate SR@%(k)s (%(module)s)") % {"k": k, "module": name}
            measures.append(Measure(keys.success_key(module, k), label, "rate"))
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
        measures.append(Measure(keys.deceptive_ratio_key(source), label, "rate", True))
    measures.append(
        Measure(
            "sincerity_score",
            _("Sincerity score"),
            "score",
            components=_components("sincerity_score"),
        )
    )
    return measures


def _ability_measure(label: str, template: str, source: str) -> Measure:
    key = template.format(source=source)
    return Measure(key, label, "score", components=_components(template, source))


def rater_measures(
    source: str, dimensions: Sequence[str], names: Mapping[str, str]
) -> list[Measure]:
    """A rater source's rubric means, then its ability scores."""
    measures = [
        Measure(
            keys.rubric_key(source, dimension),
            names.get(dimension) or dimension.replace("_", " ").capitalize(),
            "mean",
        )
        for dimension in dimensions
    ]
    measures.append(_ability_measure(_("Identity score"), "identity_score_{source}", source))
    measures.append(_ability_measure(_("Cooperation score"), "cooperation_score_{source}", source))
    measures.append(
        _ability_measure(_("Social awareness score"), "social_awareness_score_{source}", source)
    )
    measures.append(
        _ability_measure(_("Coordination score (emotions)"), "coordination_score_{source}", source)
    )
    age_key = keys.coordination_score_key(source, keys.PERSONA_AGE_GROUP)
    label = _("Coordination score (age groups)")
    measures.append(Measure(age_key, label, "score", components=(keys.coordination_key(source),)))
    return measures


def _dimensions_of(cards: Sequence[Mapping[str, Any]], source: str) -> list[str]:
    """The rubric dimensions the cards hold for ``source``: CONCEPT's eight, then any other."""
    prefix = keys.rubric_key(source, "")
    found = {
        key.removeprefix(prefix)
        for card in cards
        for key, value in card.items()
        if key.startswith(prefix) and not isinstance(value, Mapping)
    }
    extra = sorted(found - set(RUBRIC_DIMENSIONS))
    return [*RUBRIC_DIMENSIONS, *extra]


def measure_rows(
    campaign: Campaign, cards: Sequence[Mapping[str, Any]], measures: Sequence[Measure]
) -> list[MeasureRow]:
    rows = []
    for measure in measures:
        cells = []
        for card in cards:
            filters: dict[str, Any] = {name: card.get(name) for name in DEFAULT_BY}
            if measure.among_accepted:
                filters[ACCEPTED_FILTER] = "yes"
            value = card.get(measure.key)
            url = transcripts_url(campaign, filters)
            cells.append(Cell(shown(value, measure.kind), url, _notes(card).get(measure.key, "")))
        rows.append(MeasureRow(measure, cells))
    return rows


def table_sections(
    campaign: Campaign, inputs: ScorecardInputs, cards: Sequence[Mapping[str, Any]]
) -> list[Section]:
    language = get_language()
    names = {
        dimension.key: dimension.name(language) for dimension in campaign.rubric.dimensions.all()
    }
    sections = [
        Section(_("Quality"), measure_rows(campaign, cards, quality_measures())),
        Section(_("Sincerity"), measure_rows(campaign, cards, sincerity_measures(inputs.sources))),
    ]
    for source in inputs.sources:
        measures = rater_measures(source, _dimensions_of(cards, source), names)
        title = _("Rubric scores and abilities: %(source)s") % {"source": source_label(source)}
        sections.append(Section(title, measure_rows(campaign, cards, measures)))
    return sections


def measure_names(
    campaign: Campaign, inputs: ScorecardInputs, cards: Sequence[Mapping[str, Any]]
) -> dict[str, str]:
    """Every measure key of the scorecard with its name in the reader's language, as the
    table's rows name them: the glossary of the CONCEPT sheet."""
    return {
        row.measure.key: row.measure.label
        for section in table_sections(campaign, inputs, cards)
        for row in section.rows
    }


# The chart ------------------------------------------------------------------------------------


def chart_of(campaign: Campaign, systems: Sequence[Mapping[str, Any]], source: str) -> AbilityChart:
    """The six ability scores (0–5) of each system, from ``source``'s rubric scores."""
    abilities = ability_keys(source)
    charted = [
        ChartSystem(
            system=_system(card),
            url=transcripts_url(campaign, {"system": card.get("system")}),
            values=[
                BarValue(
                    ability=ability,
                    label=str(ABILITY_LABELS[ability]),
                    value=card.get(key),
                    text=shown(card.get(key), "score"),
                    note=_notes(card).get(key, ""),
                )
                for ability, key in abilities
            ],
        )
        for card in systems
    ]
    return ability_chart(charted, [(a, str(ABILITY_LABELS[a])) for a, _key in abilities])


# Persona breakdowns ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PersonaRow:
    group: str
    n: int
    url: str
    cells: list[str]


@dataclass(frozen=True)
class Ratio:
    text: str
    note: str


@dataclass(frozen=True)
class PersonaTable:
    """One system's persona groups of one persona field, with the coordination they give."""

    field: str
    label: str
    rows: list[PersonaRow]
    ratios: list[Ratio]
    value: str
    score: str
    # Why there is no score, when there is none.
    note: str
    left_out: int


@dataclass(frozen=True)
class Breakdown:
    system: str
    url: str
    tables: list[PersonaTable]


def _persona_table(
    campaign: Campaign,
    card: Mapping[str, Any],
    source: str,
    found: Coordination,
    counts: Counter[tuple[str, str, str]],
) -> PersonaTable:
    persona_field, system = found["persona_field"], _system(card)
    rows = []
    for group in found["groups"]:
        url = transcripts_url(campaign, {"system": card.get("system"), persona_field: group})
        means = found["group_means"]
        cells = [shown(means[ability].get(group), "score") for ability in COORDINATED_ABILITIES]
        rows.append(PersonaRow(group, counts[(system, persona_field, group)], url, cells))
    ratios = [
        Ratio(
            shown(found["measures"][ability], "ratio"), shown_note(found["notes"].get(ability, ""))
        )
        for ability in COORDINATED_ABILITIES
    ]
    return PersonaTable(
        field=persona_field,
        label=str(PERSONA_LABELS[persona_field]),
        rows=rows,
        ratios=ratios,
        value=shown(found["value"], "ratio"),
        score=shown(found["score"], "score"),
        note=_notes(card).get(keys.coordination_score_key(source, persona_field), ""),
        left_out=counts[(system, persona_field, "")],
    )


def persona_breakdowns(
    campaign: Campaign,
    inputs: ScorecardInputs,
    systems: Sequence[Mapping[str, Any]],
    source: str,
) -> list[Breakdown]:
    """Per system and persona field: each persona group's ability means, with the
    coordination (range / mean per ability, their mean, and the 0–5 score) beside them."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for row in inputs.rows:
        for persona_field in PERSONA_FIELDS:
            counts[(str(row["system"]), persona_field, str(row[persona_field]))] += 1
    breakdowns = []
    for card in systems:
        details: Mapping[str, Coordination] = card.get(keys.coordination_key(source)) or {}
        tables = [
            _persona_table(campaign, card, source, details[persona_field], counts)
            for persona_field in PERSONA_FIELDS
            if details.get(persona_field) is not None
        ]
        url = transcripts_url(campaign, {"system": card.get("system")})
        breakdowns.append(Breakdown(_system(card), url, tables))
    return breakdowns


# The pages' context ---------------------------------------------------------------------------


def _default_source(inputs: ScorecardInputs) -> str:
    if inputs.human_scores or not inputs.llm_scores:
        return HUMAN
    return inputs.sources[1]


def scorecard_context(campaign: Campaign, inputs: ScorecardInputs, source: str) -> dict[str, Any]:
    """The scorecard page: every measure per system × dataset, the six abilities per system
    from ``source`` (people by default), and the persona breakdowns with their coordination."""
    if source not in inputs.sources:
        source = _default_source(inputs)
    groups = campaign_scorecard(inputs)
    systems = campaign_scorecard(inputs, by=("system",))
    return {
        "campaign": campaign,
        "transcript_count": len(inputs.rows),
        "groups": groups,
        "sections": table_sections(campaign, inputs, groups),
        "chart": chart_of(campaign, systems, source),
        "breakdowns": persona_breakdowns(campaign, inputs, systems, source),
        "coordinated_abilities": [str(ABILITY_LABELS[a]) for a in COORDINATED_ABILITIES],
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
    }


def _acceptance(transcripts: QuerySet[Transcript], wanted: bool) -> Q:
    """Acceptance as the scorecard reads it: the stored outcome, else a user turn with the
    [END] mark. The mark cannot be queried portably, so only transcripts without a stored
    outcome (few: JSONL lines without one) are read here."""
    marked = [
        row["pk"]
        for row in transcripts.filter(accepted__isnull=True).values("pk", "accepted", "turns")
        if is_accepted(row)
    ]
    if wanted:
        return Q(accepted=True) | Q(pk__in=marked)
    return Q(accepted=False) | (Q(accepted__isnull=True) & ~Q(pk__in=marked))


def filtered_transcripts(
    campaign: Campaign, query: Mapping[str, str]
) -> tuple[QuerySet[Transcript], list[tuple[str, str]]]:
    """The campaign's dialogues filtered by system, dataset, persona and acceptance, and the
    filters that were applied."""
    found = campaign.transcripts.filter(kind=Transcript.Kind.DIALOGUE, superseded_at__isnull=True)
    applied: list[tuple[str, str]] = []
    for name in FILTERS:
        if name in query:
            found = found.filter(**{name: query[name]})
            applied.append((name, query[name]))
    accepted = query.get(ACCEPTED_FILTER)
    if accepted in ("yes", "no"):
        found = found.filter(_acceptance(found, accepted == "yes"))
        applied.append((ACCEPTED_FILTER, accepted))
    return found.order_by("position", "pk"), applied
