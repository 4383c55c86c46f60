"""The fidelity verdict by the one rule: a constant or random simulator never stands in."""

from __future__ import annotations

import numpy as np
import pytest
from django.utils import translation

from fidelity.report import Cell, GroupRow, simulator_alt_test, verdict

Rows = list[tuple[str, str, float]]


def _people(generator: np.random.Generator, items: int = 60) -> tuple[Rows, list[int]]:
    """Three people answer yes/no; the truth is yes for 85% of prompts, and each person
    answers against it one time in ten."""
    truth = [int(value) for value in generator.random(items) < 0.85]
    rows = [
        (f"i{index}", who, float(value if generator.random() > 0.1 else 1 - value))
        for index, value in enumerate(truth)
        for who in ("p1", "p2", "p3")
    ]
    return rows, truth


def _simulator(answers: list[float]) -> Rows:
    return [(f"i{index}", f"s{index}", answer) for index, answer in enumerate(answers)]


# Both rows agree on Pearson r within the margin, so only the rule can stop a verdict.
PEOPLE_ROW = GroupRow("people", 180, (Cell("pearson_r", 0.5, (0.48, 0.52)),))
SIM_ROW = GroupRow("sim", 60, (Cell("pearson_r", 0.5, (0.48, 0.52)),))


def test_an_always_yes_simulator_never_stands_in_though_it_passes_the_alt_test() -> None:
    # The audit's case: on 100 prompts people say yes about 85% of the time and agree at
    # α ≈ 0.45; by accuracy the always-yes simulator passes the alternative annotator test
    # (at this seed, as in two of the first three), yet its α with people is below 0 and its
    # answers never vary, and the verdict says so.
    people, _truth = _people(np.random.default_rng(2), items=100)
    alt = simulator_alt_test(people, _simulator([1.0] * 100), "sim", resamples=300, seed=1)
    with translation.override("en"):
        said = verdict("bin_pref", PEOPLE_ROW, SIM_ROW, alt)
    assert alt.passed is True and alt.alpha_llm is not None and alt.alpha_llm < 0
    assert said.difference.outcome == "equivalent"
    assert said.rule is not None and not said.rule.stands_in and said.passed is False
    failed = {check.name for check in said.rule.checks if not check.passed}
    assert {"answers_vary", "alpha_above_zero"} <= failed
    assert "The LLM cannot stand in for people" in said.sentence
    assert "it gives the same answer to every item" in said.sentence
    assert "The LLM can stand in" not in said.sentence


def test_a_simulator_that_answers_like_people_stands_in() -> None:
    # It answers the truth, as each person does, one time in ten against it.
    generator = np.random.default_rng(31)
    people, truth = _people(generator)
    answers = [float(value if generator.random() > 0.1 else 1 - value) for value in truth]
    alt = simulator_alt_test(people, _simulator(answers), "sim", resamples=300, seed=1)
    with translation.override("en"):
        said = verdict("bin_pref", PEOPLE_ROW, SIM_ROW, alt)
    assert said.rule is not None and said.rule.stands_in, said.sentence
    assert said.passed is True
    assert "The LLM can stand in for people" in said.sentence


@pytest.mark.monte_carlo
def test_a_random_simulator_never_stands_in() -> None:
    """100 seeded studies, each with new people and a simulator answering yes or no by a
    coin. None stands in (0/100: by the rule of three the rate is below 0.03 at 95%): each
    fails the alt-test and has α with people near 0."""
    generator = np.random.default_rng(32)
    standing = alpha_above_zero = 0
    for _ in range(100):
        people, _truth = _people(generator)
        coin = [float(value) for value in generator.integers(0, 2, 60)]
        alt = simulator_alt_test(people, _simulator(coin), "sim", resamples=200, seed=1)
        said = verdict("bin_pref", PEOPLE_ROW, SIM_ROW, alt)
        assert said.rule is not None
        standing += said.rule.stands_in
        alpha_above_zero += said.rule.check("alpha_above_zero").passed
        assert said.passed is False
    assert standing == 0
    assert alpha_above_zero <= 10, f"{alpha_above_zero} of 100 random simulators had α > 0"
