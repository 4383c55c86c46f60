"""Gold items: transcripts with expected answers, against which annotators are checked.

A transcript is gold when it holds at least one expected answer (``Transcript.gold``, by
dimension key). Each answer is a value on its dimension's scale, for a dimension asked about
that transcript; the roster counts annotators' agreement with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch

from annotation.models import Dimension, Level, Transcript


@dataclass(frozen=True)
class GoldQuestion:
    """One dimension a gold answer may be set for, with the values its scale allows."""

    dimension: Dimension
    values: list[tuple[int, str]]


def questions_for(transcript: Transcript, lang: str) -> list[GoldQuestion]:
    """The dimensions asked about ``transcript``, each with its scale's values and labels."""
    levels = Prefetch("levels", queryset=Level.objects.order_by("value"))
    dimensions = transcript.campaign.rubric.dimensions.scored().prefetch_related(levels)
    questions = []
    for dimension in dimensions:
        if not dimension.applies_to(transcript):
            continue
        labelled = {level.value: level.label(lang) for level in dimension.levels.all()}
        values = labelled or {v: "" for v in range(dimension.scale_min, dimension.scale_max + 1)}
        choices = [
            (value, f"{value} · {label}" if label else str(value))
            for value, label in values.items()
        ]
        questions.append(GoldQuestion(dimension=dimension, values=choices))
    return questions


def invalid_answers(transcript: Transcript, answers: dict[str, int]) -> list[str]:
    """The keys of ``answers`` that name no dimension asked here, or fall outside its scale."""
    allowed = {q.dimension.key: {v for v, _ in q.values} for q in questions_for(transcript, "en")}
    return [key for key, value in answers.items() if value not in allowed.get(key, set())]


def set_gold(transcript: Transcript, answers: dict[str, int]) -> None:
    """Store the expected answers (none: the transcript is no longer gold)."""
    bad = invalid_answers(transcript, answers)
    if bad:
        raise ValueError(f"answers outside the rubric's scales: {', '.join(sorted(bad))}")
    transcript.gold = dict(answers)
    transcript.save(update_fields=["gold"])


@dataclass(frozen=True)
class GoldRow:
    """A gold transcript with its expected answers, each as (question name, value)."""

    transcript: Transcript
    answers: list[tuple[str, int]]


def gold_rows(
    transcripts: list[Transcript], dimensions: list[Dimension], lang: str
) -> list[GoldRow]:
    """Gold transcripts with their answers in rubric order, named in the reader's language."""
    names = [(d.key, d.name(lang)) for d in sorted(dimensions, key=lambda d: d.position)]
    return [
        GoldRow(t, [(name, t.gold[key]) for key, name in names if key in t.gold])
        for t in transcripts
    ]
