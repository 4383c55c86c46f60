"""The CONCEPT measures of a group of transcripts: quality, sincerity, rubric abilities,
identity and coordination.

Plain functions over the ``TranscriptFacts`` of ``annotation.concept.facts`` and the rubric
scores of each rater source; nothing here touches the database, so the pages, the command,
the sheet and the tests share one implementation. ``measure_group`` fills a ``GroupScores``
(``annotation.concept.card``); a measure that cannot be computed is None, and its note says
why. Every formula, denominator and matching rule is written out in ``docs/concept.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.concept.card import (
    HUMAN,
    SR_CUTOFFS,
    SUCCESS_MODULES,
    Coordination,
    GroupScores,
    SourceScores,
    cooperation_key,
    coordination_score_key,
    deceptive_judged_key,
    deceptive_ratio_key,
    identity_key,
    rubric_key,
    social_awareness_key,
    success_key,
)
from annotation.concept.facts import PERSONA_FIELDS, TranscriptFacts
from evalsite.agreement.phrases import Clauses, Listing, Phrase, gettext_noop
from evalsite.user_simulation import END_MARK

RUBRIC_DIMENSIONS = (
    "manner",
    "quality",
    "relevance",
    "social_awareness",
    "persuasiveness",
    "human_likeness",
    "overall",
    "user_satisfaction",
)

NONE_ACCEPTED = Phrase(gettext_noop("no transcript in the group was accepted"))
# The binary rubric question "does the accepted item match the stated preferences?" (1 = yes).
DECEPTION_DIMENSION = "acceptance_follows_preferences"
# Reliability is left out: it needs paraphrased pairs of user turns, which transcripts lack.
COORDINATED_ABILITIES = ("quality", "identity", "cooperation", "social_awareness")
_FLAG_NAMES = {"rec": "rec_success_rec", "dialogue": "rec_success_dialogue"}


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if number == number and abs(number) != float("inf") else None


@dataclass(frozen=True)
class RaterSource:
    """Rubric scores from one kind of rater: ``human``, or ``llm_<evaluator>``."""

    name: str
    scores: Mapping[str, Mapping[str, float]]


def rater_sources(
    human_scores: Mapping[str, Mapping[str, float]] | None,
    llm_scores: Mapping[str, Mapping[str, Mapping[str, float]]] | None,
) -> list[RaterSource]:
    sources = [] if human_scores is None else [RaterSource(HUMAN, human_scores)]
    for evaluator in sorted(llm_scores or {}):
        sources.append(RaterSource(f"llm_{evaluator}", (llm_scores or {})[evaluator]))
    return sources


# Quality --------------------------------------------------------------------------------------


def _quality_measures(facts: Sequence[TranscriptFacts], scores: GroupScores) -> None:
    n = len(facts)
    notes = scores.notes
    accepted = [f for f in facts if f.accepted]
    scores.accepted = len(accepted)
    scores.acceptance_rate = len(accepted) / n
    missing = sum(1 for f in facts if not f.outcome_recorded)
    if missing:
        notes["acceptance_rate"] = Phrase(
            gettext_noop(
                "%(n)d transcript(s) have no recorded outcome; a user turn with %(mark)s "
                "decided them"
            ),
            n=missing,
            mark=END_MARK,
        )
    turns = [f.turns_to_accept for f in accepted if f.turns_to_accept is not None]
    scores.avg_turns_to_accept = _mean(turns)
    if not accepted:
        notes["avg_turns_to_accept"] = NONE_ACCEPTED
    elif not turns:
        notes["avg_turns_to_accept"] = Phrase(
            gettext_noop("no accepted transcript records its accepting turn")
        )
    elif len(turns) < len(accepted):
        notes["avg_turns_to_accept"] = Phrase(
            gettext_noop("%(n)d accepted transcript(s) without an accepting turn are left out"),
            n=len(accepted) - len(turns),
        )
    for module in SUCCESS_MODULES:
        flag_name = _FLAG_NAMES[module]
        flagged = any(f.success_flagged[module] for f in facts)
        unflagged = sum(1 for f in facts if not f.success_flagged[module])
        firsts = [f.first_success[module] for f in facts]
        for k in SR_CUTOFFS:
            key = success_key(module, k)
            if not flagged:
                scores.success_rates[(module, k)] = None
                notes[key] = (
                    Phrase(
                        gettext_noop("no system turn in the group carries a %(flag)s flag"),
                        flag=flag_name,
                    )
                    if module == "rec"
                    else Phrase(
                        gettext_noop(
                            "no system turn in the group carries a %(flag)s or success flag"
                        ),
                        flag=flag_name,
                    )
                )
                continue
            rate = sum(1 for first in firsts if first is not None and first <= k) / n
            scores.success_rates[(module, k)] = rate
            if unflagged:
                notes[key] = Phrase(
                    gettext_noop("%(n)d transcript(s) carry no flag and count as unsuccessful"),
                    n=unflagged,
                )


def _duplicate_cells(facts: Sequence[TranscriptFacts], scores: GroupScores) -> None:
    cells = [f.cell for f in facts if f.cell is not None]
    if not cells:
        note = Phrase(gettext_noop("no transcript has a Concept4CRS persona × attribute cell"))
        scores.notes["duplicate_cells"] = scores.notes["duplicate_cells_dropped"] = note
        return
    scores.duplicate_cells = len(cells) - len(set(cells))
    scores.duplicate_cells_dropped = sum(f.duplicates_dropped for f in facts)
    if scores.duplicate_cells or scores.duplicate_cells_dropped:
        scores.notes["n"] = Phrase(
            gettext_noop(
                "%(n)d transcript(s); %(repeats)d repeat a persona × attribute cell already in "
                "the group (importing with --dedupe-cells keeps the lowest dialogue id of each), "
                "and %(dropped)d such repeat(s) were dropped at import"
            ),
            n=scores.n,
            repeats=scores.duplicate_cells,
            dropped=scores.duplicate_cells_dropped,
        )


# Sincerity ------------------------------------------------------------------------------------


def _nonexistent_items(facts: Sequence[TranscriptFacts], scores: GroupScores) -> None:
    notes = scores.notes
    checked = [f for f in facts if f.items is not None]
    reasons = sorted({f.catalog_reason for f in facts if f.catalog_reason is not None})
    if not checked:
        reason = Phrase(gettext_noop("%(reasons)s"), reasons=Clauses(reasons))
        scores.nonexistent_item_reason = reason
        notes["nonexistent_item_ratio"] = reason
        return
    named = sum(len(f.items or {}) for f in checked)
    missing = sum(1 for f in checked for exists in (f.items or {}).values() if not exists)
    scores.items_named = named
    scores.items_nonexistent = missing
    scores.nonexistent_item_ratio = missing / named if named else None
    names_none = Phrase(gettext_noop("the system names no item"))
    scores.nonexistent_item_reason = None if named else names_none
    if not named:
        notes["nonexistent_item_ratio"] = names_none
    elif len(checked) < len(facts):
        notes["nonexistent_item_ratio"] = (
            f"{len(facts) - len(checked)} transcript(s) are left out: " + "; ".join(reasons)
        )


def _deception_by_catalog(facts: Sequence[TranscriptFacts], scores: GroupScores) -> None:
    accepted = [f for f in facts if f.accepted]
    judged = [f for f in accepted if f.deceptive is not None]
    scores.deceptive_judged_catalog = len(judged)
    scores.deceptive_ratio_catalog = (
        sum(1 for f in judged if f.deceptive) / len(judged) if judged else None
    )
    if not accepted:
        scores.notes["deceptive_ratio_catalog"] = NONE_ACCEPTED
    elif len(judged) < len(accepted):
        counts: dict[str, int] = {}
        for f in accepted:
            if f.deceptive is None:
                reason = f.deceptive_reason or Phrase(gettext_noop("not judged"))
                counts[reason] = counts.get(reason, 0) + 1
        left_out = Clauses(
            Phrase(gettext_noop("%(n)d with %(reason)s"), n=count, reason=reason)
            for reason, count in sorted(counts.items())
        )
        scores.notes["deceptive_ratio_catalog"] = (
            Phrase(gettext_noop("no accepted transcript could be judged: %(why)s"), why=left_out)
            if not judged
            else Phrase(gettext_noop("left out: %(why)s"), why=left_out)
        )


# Rubric scores --------------------------------------------------------------------------------


def _source_name(name: str) -> str:  # the people in the reader's language; an LLM by its key
    return Phrase(gettext_noop("human")) if name == HUMAN else name


def _source_scores(
    facts: Sequence[TranscriptFacts], source: RaterSource, notes: dict[str, str]
) -> SourceScores:
    measured = SourceScores(source.name)
    values: dict[str, list[float]] = {}
    measured.scored = sum(1 for f in facts if source.scores.get(f.id))
    if not measured.scored:
        notes[deceptive_judged_key(source.name)] = Phrase(
            gettext_noop("no %(source)s scores in the group"), source=_source_name(source.name)
        )
    for f in facts:
        for dimension, score in source.scores.get(f.id, {}).items():
            number = _number(score)
            if number is not None and dimension != DECEPTION_DIMENSION:
                values.setdefault(dimension, []).append(number)
    extra = sorted(set(values) - set(RUBRIC_DIMENSIONS))
    for dimension in (*RUBRIC_DIMENSIONS, *extra):
        measured.dimensions[dimension] = _mean(values.get(dimension, []))
        if measured.dimensions[dimension] is None:
            key = rubric_key(source.name, dimension)
            notes[key] = Phrase(
                gettext_noop("no %(source)s score on %(dimension)s in the group"),
                source=_source_name(source.name),
                dimension=dimension,
            )
    shares = []
    for f in facts:
        if not f.accepted:
            continue
        answer = _number(source.scores.get(f.id, {}).get(DECEPTION_DIMENSION))
        if answer is not None:
            shares.append(1.0 - answer)
    measured.deceptive_ratio = _mean(shares)
    measured.deceptive_judged = len(shares)
    if measured.deceptive_ratio is None:
        notes[deceptive_ratio_key(source.name)] = Phrase(
            gettext_noop("no %(source)s answer on %(dimension)s for an accepted transcript"),
            source=_source_name(source.name),
            dimension=DECEPTION_DIMENSION,
        )
    return measured


def _rubric_measures(
    facts: Sequence[TranscriptFacts], sources: Sequence[RaterSource], scores: GroupScores
) -> None:
    notes = scores.notes
    scores.sources = [_source_scores(facts, source, notes) for source in sources]
    llm_ratios = [
        source.deceptive_ratio
        for source in scores.sources
        if source.name.startswith("llm_") and source.deceptive_ratio is not None
    ]
    if not any(s.name == HUMAN for s in sources):
        notes[deceptive_ratio_key(HUMAN)] = Phrase(gettext_noop("no human scores were given"))
    scores.deceptive_ratio_llm = _mean(llm_ratios)
    if not any(s.name.startswith("llm_") for s in sources):
        notes[deceptive_ratio_key("llm")] = Phrase(gettext_noop("no LLM scores were given"))
    elif scores.deceptive_ratio_llm is None:
        notes[deceptive_ratio_key("llm")] = Phrase(
            gettext_noop("no LLM evaluator answered for an accepted transcript")
        )


# Composite ability scores (0–5) ---------------------------------------------------------------


def quality_score(acceptance_rate: float | None) -> float | None:
    """Quality = 5 × AR."""
    return None if acceptance_rate is None else 5 * acceptance_rate


def sincerity_score(deceptive_ratio: float | None, nonexistent_ratio: float | None) -> float | None:
    """Sincerity = 5 × (1 − (deceptive ratio + non-existent item ratio) / 2)."""
    if deceptive_ratio is None or nonexistent_ratio is None:
        return None
    return 5 * (1 - (deceptive_ratio + nonexistent_ratio) / 2)


def identity_score(persuasiveness: float | None, deceptive_ratio: float | None) -> float | None:
    """Identity = persuasiveness (1–5) × (1 − deceptive ratio): persuasive and honest."""
    if persuasiveness is None or deceptive_ratio is None:
        return None
    return persuasiveness * (1 - deceptive_ratio)


def cooperation_score(
    manner: float | None,
    quality: float | None,
    relevance: float | None,
    sincerity: float | None,
) -> float | None:
    """Cooperation = the mean of the four maxims: manner, quality, relevance and sincerity."""
    maxims = (manner, quality, relevance, sincerity)
    if any(value is None for value in maxims):
        return None
    return sum(value for value in maxims if value is not None) / 4


def coordination_score(coordination_value: float | None) -> float | None:
    """Coordination = 5 − the mean over abilities of range / mean across personas, in [0, 5]."""
    if coordination_value is None:
        return None
    return min(5.0, max(0.0, 5 - coordination_value))


def _composites(scores: GroupScores) -> None:
    notes = scores.notes
    scores.quality_score = quality_score(scores.acceptance_rate)
    scores.sincerity_score = sincerity_score(
        scores.deceptive_ratio_catalog, scores.nonexistent_item_ratio
    )
    if scores.sincerity_score is None:
        notes["sincerity_score"] = Phrase(
            gettext_noop("needs both %(first)s and %(second)s"),
            first="deceptive_ratio_catalog",
            second="nonexistent_item_ratio",
        )
    for source in scores.sources:
        name = source.name
        rubric = source.dimensions
        source.identity_score = identity_score(
            rubric["persuasiveness"], scores.deceptive_ratio_catalog
        )
        source.cooperation_score = cooperation_score(
            rubric["manner"], rubric["quality"], rubric["relevance"], scores.sincerity_score
        )
        source.social_awareness_score = rubric["social_awareness"]
        if source.identity_score is None:
            notes[identity_key(name)] = Phrase(
                gettext_noop("needs %(measures)s"),
                measures=Listing((f"{name}_persuasiveness", "deceptive_ratio_catalog")),
            )
        if source.cooperation_score is None:
            notes[cooperation_key(name)] = Phrase(
                gettext_noop("needs %(measures)s"),
                measures=Listing(
                    (f"{name}_manner", f"{name}_quality", f"{name}_relevance", "sincerity_score")
                ),
            )
        if source.social_awareness_score is None:
            notes[social_awareness_key(name)] = Phrase(
                gettext_noop("needs %(measures)s"), measures=Listing((f"{name}_social_awareness",))
            )


def _abilities(scores: GroupScores, source: str) -> dict[str, float | None]:
    measured = scores.source(source)
    return {
        "quality": scores.quality_score,
        "identity": measured.identity_score,
        "cooperation": measured.cooperation_score,
        "social_awareness": measured.social_awareness_score,
    }


def measure_group(facts: Sequence[TranscriptFacts], sources: Sequence[RaterSource]) -> GroupScores:
    """Every measure of one group of transcripts, without coordination (see
    ``coordinate_personas``)."""
    scores = GroupScores(n=len(facts))
    _duplicate_cells(facts, scores)
    _quality_measures(facts, scores)
    _nonexistent_items(facts, scores)
    _deception_by_catalog(facts, scores)
    _rubric_measures(facts, sources, scores)
    _composites(scores)
    return scores


# Coordination -----------------------------------------------------------------------------------


def persona_coordination(
    groups: Mapping[str, Mapping[str, Any]], measures: Sequence[str], persona_field: str
) -> Coordination:
    """For each measure, (max − min) / mean across the persona groups, and their average.

    ``groups`` maps each persona value to its measure values. The average (``value``) and its
    score are None unless every measure has a ratio; ``notes`` says why a ratio is missing.
    The result keeps the per-group values (``group_means``) that each ratio came from: a low
    value can also mean that every group did equally badly.
    """
    per_measure: dict[str, float | None] = {}
    group_means: dict[str, dict[str, float | None]] = {}
    notes: dict[str, str] = {}
    personas = sorted(groups)
    for measure in measures:
        means = {persona: _number(groups[persona].get(measure)) for persona in personas}
        group_means[measure] = means
        known = [value for value in means.values() if value is not None]
        if len(known) < 2:
            per_measure[measure] = None
            notes[measure] = Phrase(
                gettext_noop("has a value in fewer than two %(field)s groups"), field=persona_field
            )
            continue
        mean = sum(known) / len(known)
        if mean <= 0:
            per_measure[measure] = None
            notes[measure] = Phrase(
                gettext_noop("its mean across groups is not above 0, so the range cannot be scaled")
            )
            continue
        per_measure[measure] = (max(known) - min(known)) / mean
    # A mean over fewer measures would be a different quantity, so every one must have a ratio.
    complete = bool(per_measure) and all(value is not None for value in per_measure.values())
    value = _mean([v for v in per_measure.values() if v is not None]) if complete else None
    return {
        "persona_field": persona_field,
        "groups": personas,
        "measures": per_measure,
        "group_means": group_means,
        "value": value,
        "score": coordination_score(value),
        "notes": notes,
    }


def coordinate_personas(
    facts: Sequence[TranscriptFacts], sources: Sequence[RaterSource], scores: GroupScores
) -> None:
    """The coordination of each rater source's abilities across the group's persona groups,
    for each persona field; transcripts without a persona value are left out."""
    if not sources:
        return
    by_field: dict[str, dict[str, GroupScores]] = {}
    for persona_field in PERSONA_FIELDS:
        split: dict[str, list[TranscriptFacts]] = {}
        for f in facts:
            if f.personas.get(persona_field):
                split.setdefault(f.personas[persona_field], []).append(f)
        by_field[persona_field] = {
            persona: measure_group(members, sources) for persona, members in split.items()
        }
    for source in scores.sources:
        details: dict[str, Coordination] = {}
        for persona_field, subgroups in by_field.items():
            abilities = {
                persona: _abilities(sub, source.name) for persona, sub in subgroups.items()
            }
            details[persona_field] = persona_coordination(
                abilities, COORDINATED_ABILITIES, persona_field
            )
        source.coordination = details
        for persona_field in PERSONA_FIELDS:
            if details[persona_field]["score"] is None:
                key = coordination_score_key(source.name, persona_field)
                scores.notes[key] = _coordination_note(source, details[persona_field])


def _coordination_note(source: SourceScores, found: Coordination) -> str:
    if not source.scored:
        return Phrase(
            gettext_noop(
                "no %(source)s scores in the group: coordination needs the %(source)s identity, "
                "cooperation and social awareness of every persona group"
            ),
            source=_source_name(source.name),
        )
    missing = [measure for measure, ratio in found["measures"].items() if ratio is None]
    reasons = Clauses(
        Phrase(
            gettext_noop("%(measure)s %(reason)s"), measure=measure, reason=found["notes"][measure]
        )
        for measure in missing
    )
    return Phrase(
        gettext_noop("needs a range / mean for every one of %(measures)s: %(reasons)s"),
        measures=Listing(COORDINATED_ABILITIES),
        reasons=reasons,
    )
