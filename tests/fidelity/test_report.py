from __future__ import annotations

import io
import math
import random

import openpyxl
import pytest
from django.utils import translation

from evalsite.fidelity.common import AtCount
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
from fidelity.report import (
    Cell,
    GroupRow,
    simulator_alt_test,
    study_report,
    verdict,
)
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
    assert said.difference.outcome is None and "no test of the difference" in said.sentence
    # An always-yes simulator never stands in for people, whatever else is missing.
    assert said.rule is not None and not said.rule.stands_in
    assert said.passed is False
    assert "it gives the same answer to every item" in said.sentence
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


def _row(
    group: str, value: float | None, ci: tuple[float, float] | None, measure: str = "coherence"
) -> GroupRow:
    return GroupRow(group, 10, (Cell(measure, value, ci),))


def test_the_difference_is_tested_against_the_margin() -> None:
    # The difference's CI is d ± √(h_people² + h_simulator²), h each CI's half-width: with
    # people at 0.65 [0.64, 0.66] and a margin of ±0.05 on the type–token ratio,
    # 0.64 [0.63, 0.65] gives -0.01 ± 0.0141, inside the margin; 0.50 [0.45, 0.55] gives
    # -0.15 ± 0.0510, wholly beyond it; 0.62 [0.57, 0.67] gives -0.03 ± 0.0510, reaching past
    # it; and no CI gives no test.
    people = _row("people", 0.65, (0.64, 0.66), "type_token_ratio")
    with translation.override("en"):
        near = verdict(
            "rec_request", people, _row("a", 0.64, (0.63, 0.65), "type_token_ratio"), None
        )
        far = verdict("rec_request", people, _row("b", 0.5, (0.45, 0.55), "type_token_ratio"), None)
        wide = verdict(
            "rec_request", people, _row("c", 0.62, (0.57, 0.67), "type_token_ratio"), None
        )
        bare = verdict("rec_request", people, _row("d", 0.65, None, "type_token_ratio"), None)
    assert near.difference.outcome == "equivalent" and near.passed is True
    assert near.difference.ci == pytest.approx(
        (-0.01 - math.hypot(0.01, 0.01), -0.01 + math.hypot(0.01, 0.01))
    )
    assert (
        "a is equivalent to people on type–token ratio within the margin of ±0.05" in near.sentence
    )
    assert "the difference is -0.01 [-0.02, +0.00]" in near.sentence
    assert far.difference.outcome == "different" and far.passed is False
    assert (
        "b differs from people on type–token ratio by more than the margin of ±0.05" in far.sentence
    )
    assert wide.difference.outcome == "inconclusive" and wide.passed is None
    assert "c is not shown to be equivalent to people" in wide.sentence
    assert bare.difference.outcome is None and bare.passed is None
    assert "d: no test of the difference from people" in bare.sentence
    # This task's answers are not scored against people's: no stand-in verdict at all.
    assert near.rule is None and "not judged on this task" in near.sentence
    assert "The LLM can stand in" not in near.sentence


def test_items_talk_compares_at_the_simulator_s_count() -> None:
    people = _row("people", 9.0, (8.8, 9.2), "entropy_cs_bits")
    sim = _row("sim", 7.0, (6.8, 7.2), "entropy_cs_bits")
    at_count = AtCount(count=40, repeats=200, mean=7.1, sd=0.1, low=6.9, high=7.3)
    with translation.override("en"):
        said = verdict("items_talk", people, sim, None, at_count=at_count, subsampled="people")
    # The people's mean at 40 answers, not their 9.0 over all answers, is compared: -0.1.
    assert said.difference.difference == pytest.approx(-0.1)
    assert said.difference.outcome == "equivalent"
    assert (
        "At the simulator's 40 answers, people's Chao–Shen entropy averages 7.10 bits over 200 "
        "subsamples (s.d. 0.10; 2.5th to 97.5th percentile 6.90 to 7.30)."
    ) in said.sentence
    unmeasured = verdict("items_talk", people, sim, None, subsampled="people")
    assert unmeasured.difference.outcome is None


def test_the_report_subsamples_people_to_the_simulator_s_answers(study: Study) -> None:
    make_prompts(study, COUNTS)
    Simulator.objects.create(study=study, label="sim", configuration="DI")
    for number, prompt in enumerate(study.prompts.filter(task="items_talk")):
        for who in ("p1", "p2", "p3"):
            _answer(prompt, "people", who, MentionsPayload("t", (f"x{number}", f"{who}{number}")))
        _answer(prompt, "sim", prompt.key, MentionsPayload("t", (f"x{number}",)))
    talk = next(task for task in study_report(study, resamples=0) if task.task == "items_talk")
    (said,) = talk.verdicts
    assert said.difference.subsampled == "people"
    assert said.difference.at_count is not None
    # Six answers of people, two of the simulator: people are drawn two answers at a time.
    assert (said.difference.at_count.count, said.difference.at_count.repeats) == (2, 200)
    assert talk.rows[0].cell("entropy_cs_bits").value is not None


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
    assert text.startswith("task,subset,group,n_answers,measure,value,ci_low,ci_high,notes_label")
    assert "bin_pref,all,people,10,pearson_r,0.919" in text
    assert "bin_pref,paper,gpt-4, DI" not in text and 'bin_pref,paper,"gpt-4, DI"' in text
    assert 'bin_pref,paper frequent,"gpt-4, DI+PP",,pearson_r,0.75,,,"Table 3, frequent"' in text
    buffer = io.BytesIO()
    write_report_workbook(buffer, tasks, "study", "coordinator")
    book = openpyxl.load_workbook(io.BytesIO(buffer.getvalue()))
    assert book.sheetnames == ["About", "measures", "verdicts"]
    verdicts = list(book["verdicts"].iter_rows(values_only=True))
    assert verdicts[0][:2] == ("task", "group") and len(verdicts) == 1 + 5
    header = verdicts[0]
    assert {"margin", "outcome", "at_count_mean", "stands_in", "failed_checks"} <= set(header)
    shown = {(row[0], row[1]): dict(zip(header, row, strict=True)) for row in verdicts[1:]}
    always_yes = shown[("bin_pref", "sim")]
    assert always_yes["margin"] == 0.1 and always_yes["stands_in"] is False
    assert "answers_vary" in str(always_yes["failed_checks"])
    assert shown[("items_talk", "sim")]["stands_in"] is None


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
