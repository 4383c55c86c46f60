from __future__ import annotations

import io
import math
import random

import openpyxl
import pytest
from django.utils import translation

from fidelity.content import (
    AcceptRejectPayload,
    AnswerPayload,
    ItemContent,
    ItemsTalkContent,
    MentionsPayload,
    YesNoPayload,
    payload_json,
)
from fidelity.figures import measure_figure
from fidelity.models import Answer, Prompt, Simulator, Study
from fidelity.prompts import PromptCounts, make_prompts
from fidelity.references import REFERENCES
from fidelity.report import AltTestCell, Cell, GroupRow, simulator_alt_test, study_report, verdict
from fidelity.sheets import csv_bytes, write_report_workbook

COUNTS = PromptCounts(items_talk=2, open_pref=1, rec_request=1, items_per_persona=2)


def _answer(prompt: Prompt, group: str, who: str, payload: AnswerPayload) -> None:
    source = "people" if group == "people" else "simulator"
    Answer.objects.create(
        prompt=prompt, group=group, responder=who, source=source, payload=payload_json(payload)
    )


@pytest.fixture
def answered(study: Study) -> Study:
    make_prompts(study, COUNTS)
    Simulator.objects.create(study=study, label="sim", configuration="DI")
    people = {"m1": (1, 1), "m2": (1, 0), "m3": (1, 0), "m4": (0, 0), "m5": (0, 1)}
    for prompt in study.prompts.filter(task="bin_pref"):
        content = prompt.shown()
        assert isinstance(content, ItemContent)
        for who, yes in zip(("p1", "p2"), people[content.item_id], strict=True):
            _answer(prompt, "people", who, YesNoPayload(bool(yes)))
        _answer(prompt, "sim", prompt.key, YesNoPayload(True))
    for prompt in study.prompts.filter(task="feedback"):
        content = prompt.shown()
        if content.recommendation is not None:  # type: ignore[union-attr]
            positive = content.recommendation.kind == "positive"  # type: ignore[union-attr]
            _answer(prompt, "people", "p1", AcceptRejectPayload(positive))
            _answer(prompt, "sim", prompt.key, AcceptRejectPayload(True))
    return study


def test_pearson_r_of_ratings_and_people_s_yes_rates_is_hand_computed(answered: Study) -> None:
    bin_pref = next(task for task in study_report(answered, resamples=0) if task.task == "bin_pref")
    people, sim = bin_pref.rows
    assert people.group == "people" and sim.group == "sim"
    # ratings 4.5 4 3.5 2 3 (mean 3.4), yes-rates 1 .5 .5 0 .5 (mean .5):
    # Sxy = 1.25, Sxx = 3.7, Syy = 0.5, r = 1.25 / sqrt(1.85)
    assert people.cell("pearson_r").value == pytest.approx(1.25 / math.sqrt(1.85))
    assert people.cell("yes_rate").value == pytest.approx(0.5)
    always_yes = sim.cell("pearson_r")
    assert always_yes.value is None and always_yes.notes
    assert sim.cell("yes_rate").value == 1.0
    (alt,) = bin_pref.alt_tests
    assert alt.passed is None and "items" in alt.note
    (said,) = bin_pref.verdicts
    assert said.close is None and "no verdict" in said.sentence
    frequent = dict(bin_pref.buckets)["frequent"]
    assert [row.cell("n_items").value for row in frequent] == [2.0, 2.0]


def test_feedback_coherence_per_group(answered: Study) -> None:
    feedback = next(task for task in study_report(answered, resamples=0) if task.task == "feedback")
    people, sim = feedback.rows
    assert people.cell("coherence").value == 1.0
    # The simulator accepts all three positives and all three negatives: 3 of 6 coherent.
    assert sim.cell("coherence").value == 0.5
    assert sim.cell("reject_rate_negative").value == 0.0


def test_items_talk_drops_each_prompt_s_own_items(study: Study) -> None:
    make_prompts(study, COUNTS)
    first = study.prompts.get(key="items_talk-1")
    content = first.shown()
    assert isinstance(content, ItemsTalkContent)
    own = content.items[0].item_id
    shown = {item.item_id for item in content.items}
    others = [item for item in ("m1", "m2", "m3", "m4", "m5") if item not in shown]
    a, b = others[:2]
    _answer(first, "people", "p1", MentionsPayload("t", (own, a, b)))
    _answer(first, "people", "p2", MentionsPayload("t", (a, a)))
    talk = next(task for task in study_report(study, resamples=0) if task.task == "items_talk")
    people = talk.rows[0]
    # kept: a, b, a, a -> shares 3/4 and 1/4
    expected = -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    assert people.cell("entropy_bits").value == pytest.approx(expected)
    assert (people.cell("n_mentions").value, people.cell("n_distinct").value) == (4.0, 2.0)


def _row(group: str, value: float | None, ci: tuple[float, float] | None) -> GroupRow:
    return GroupRow(group, 10, (Cell("coherence", value, ci),))


def test_the_verdict_compares_intervals_and_adds_the_alt_test() -> None:
    people = _row("people", 0.9, (0.8, 1.0))
    with translation.override("en"):
        close = verdict("feedback", people, _row("a", 0.75, (0.6, 0.85)), None)
        far = verdict("feedback", people, _row("b", 0.5, (0.4, 0.6)), None)
        inside = verdict("feedback", people, _row("c", 0.85, None), None)
        failed = verdict("feedback", people, _row("d", 0.85, None), simulator_alt_test([], [], "d"))
    assert close.close is True and "is close to people" in close.sentence
    assert far.close is False and "is not close" in far.sentence
    assert inside.close is True
    assert failed.close is True and "not available" in failed.sentence
    alone = _row("people", 0.9, None)
    with translation.override("en"):
        unknown = verdict("feedback", alone, _row("e", 0.85, None), AltTestCell("e", True, 1.0))
        beaten = verdict("feedback", people, _row("f", 0.85, None), AltTestCell("f", False, 0.0))
    assert unknown.close is None and "The alt-test passes" in unknown.sentence
    assert beaten.close is False and "The alt-test fails" in beaten.sentence


def test_the_alt_test_passes_a_simulator_that_answers_like_people() -> None:
    truth = [index % 2 for index in range(30)]
    people = [
        (f"i{i}", who, float(value if who != "p3" or i % 5 else 1 - value))
        for i, value in enumerate(truth)
        for who in ("p1", "p2", "p3")
    ]
    like = [(f"i{i}", "s", float(value)) for i, value in enumerate(truth)]
    unlike = [(f"i{i}", "s", float(1 - value)) for i, value in enumerate(truth)]
    assert simulator_alt_test(people, like, "s").passed is True
    assert simulator_alt_test(people, unlike, "s").passed is False


def test_the_exports_hold_every_measure_and_verdict(answered: Study) -> None:
    tasks = study_report(answered, resamples=0)
    text = csv_bytes(tasks).decode()
    assert text.startswith("task,subset,group,n_answers,measure,value,ci_low,ci_high,notes")
    assert "bin_pref,all,people,10,pearson_r,0.919" in text
    assert "bin_pref,paper,gpt-4, DI" not in text and 'bin_pref,paper,"gpt-4, DI"' in text
    assert 'bin_pref,paper frequent,"gpt-4, DI+PP",,pearson_r,0.75,,,"Table 3, frequent"' in text
    buffer = io.BytesIO()
    write_report_workbook(buffer, tasks)
    book = openpyxl.load_workbook(io.BytesIO(buffer.getvalue()))
    assert book.sheetnames == ["measures", "verdicts"]
    verdicts = list(book["verdicts"].iter_rows(values_only=True))
    assert verdicts[0][:2] == ("task", "group") and len(verdicts) == 1 + 5


def test_the_figure_draws_each_group_and_the_paper_s_lines() -> None:
    rows = (_row("people", 0.9, (0.8, 1.0)), _row("a", 0.5, None), _row("b", None, None))
    refs = REFERENCES["feedback"]
    figure = measure_figure("f", "coherence", "coherence", rows, refs, "people")
    assert figure is not None
    assert len(figure.points) == 2
    assert [line.css for line in figure.lines].count("ci") == 1
    assert [line.css for line in figure.lines].count("reference") == 2
    assert any(text.text.startswith("1: gpt-3.5 0.97") for text in figure.texts)
    empty = (_row("people", None, None),)
    assert measure_figure("g", "coherence", "coherence", empty, refs, "people") is None


def test_a_simulator_answering_at_random_or_always_the_same_fails_the_alt_test() -> None:
    rng = random.Random(7)
    truth = [rng.randint(0, 1) for _ in range(60)]
    people = [
        (f"i{i}", who, float(value if rng.random() > 0.1 else 1 - value))
        for i, value in enumerate(truth)
        for who in ("p1", "p2", "p3")
    ]
    coin = [(f"i{i}", "s", float(rng.randint(0, 1))) for i in range(len(truth))]
    always_yes = [(f"i{i}", "s", 1.0) for i in range(len(truth))]
    assert simulator_alt_test(people, coin, "s").passed is False
    assert simulator_alt_test(people, always_yes, "s").passed is False
