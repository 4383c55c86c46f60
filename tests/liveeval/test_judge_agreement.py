"""Simulated users set against human judges: the alt-test, α beside α, and the verdict."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest
from django.utils import translation

from evalsite.agreement.clusters import (
    cluster_estimates,
    cluster_interval,
    cluster_resample_weights,
)
from evalsite.agreement.pairwise_alpha import MeanPairAlphaStatistic
from liveeval.judge_agreement import agreement_between_sources, sources_verdict
from liveeval.metrics import MEASURES, SessionRow
from liveeval.results import sources_verdict_sentence


@pytest.fixture(autouse=True)
def in_english() -> Iterator[None]:
    """The sentences are read in English, whatever language an earlier test left active."""
    with translation.override("en"):
        yield


JUDGES = ("ann", "bo", "cy")
Ratings = dict[str, int]


def truth(rng: np.random.Generator) -> Ratings:
    """A random rating on every measure's scale."""
    return {measure.name: int(rng.choice(measure.scale)) for measure in MEASURES}


def nudged(ratings: Ratings, rng: np.random.Generator) -> Ratings:
    """The same ratings, one in twenty moved to a neighbouring point of its scale."""
    changed = dict(ratings)
    for measure in MEASURES:
        if rng.random() < 0.05:
            points = measure.scale
            where = points.index(ratings[measure.name])
            changed[measure.name] = points[where - 1] if where else points[1]
    return changed


def row(task: str, system: str, judge: str, ratings: Ratings, source: str) -> SessionRow:
    return SessionRow(
        system=system,
        task=task,
        judge=judge,
        completed=bool(ratings["completed"]),
        turns=6,
        penalty=30,
        satisfaction=ratings["satisfaction"],
        fluency=ratings["fluency"],
        guidance=ratings["guidance"],
        source=source,  # type: ignore[arg-type]
    )


def campaign(
    n_tasks: int, simulated: Callable[[dict[str, Ratings], np.random.Generator], Ratings]
) -> list[SessionRow]:
    """Three judges who mostly agree rate every (task, system) pair, two systems per task, and
    one simulated user rates each pair as ``simulated`` says, given the judges' ratings."""
    rng = np.random.default_rng(7)
    rows = []
    for number in range(n_tasks):
        for system in ("A", "B"):
            task = f"t{number:02d}"
            actual = truth(rng)
            judged = {judge: nudged(actual, rng) for judge in JUDGES}
            rows += [row(task, system, judge, judged[judge], "human") for judge in JUDGES]
            rows.append(row(task, system, "sim", simulated(judged, rng), "simulated"))
    return rows


def at_random(judged: dict[str, Ratings], rng: np.random.Generator) -> Ratings:
    return truth(rng)


def copying_ann(judged: dict[str, Ratings], rng: np.random.Generator) -> Ratings:
    return judged["ann"]


def test_simulated_users_rating_at_random_do_not_stand_in_for_agreeing_judges() -> None:
    # 60 tasks × 2 systems: every judge has 120 pairs, more than the 30 the alt-test needs and
    # enough that α of a random rater (its spread about 0.2 on 40 binary pairs) lies near 0.
    between = agreement_between_sources(campaign(60, at_random), resamples=200)

    for agreement in between.values():
        result = agreement.alt_test_result
        assert result is not None and not result.passed, agreement.measure
        assert result.winning_rate == 0
        assert [human.n_items for human in result.humans] == [120, 120, 120]
        # α near 0 on 120 pairs, its interval over tasks far below the judges' α of 0.8 or more.
        versus, ceiling = agreement.alpha_vs_judges, agreement.alpha_between_judges.value
        assert versus.value is not None and abs(versus.value) < 0.2, agreement.measure
        assert ceiling is not None and ceiling > 0.75, agreement.measure
        assert versus.interval.bounds is not None
        assert versus.interval.bounds[1] < ceiling - 0.5, agreement.measure
    verdict = sources_verdict(between)
    assert verdict.outcome == "cannot_stand_in"
    assert verdict.failed == ("C", "Sa", "F", "G")
    sentence = sources_verdict_sentence(between)
    assert sentence.startswith(
        "Simulated users cannot stand in for the human judges on C, Sa, F, G: on each, at least "
        "one check of the rule fails (alternative annotator test at ε = 0.15, α with the judges "
        "above 0 and not significantly below α between judges, ratings that vary)."
    )
    # Each measure names what failed: the test, and α far below the judges'.
    for symbol, failure in verdict.failures:
        failed = {check.name for check in failure.checks if not check.passed}
        assert {"alt_test", "alpha_not_below_people"} <= failed, symbol
        assert f" {symbol}: it fails the alternative annotator test (winning rate 0.00 < 0.5)" in (
            sentence
        )
    assert "Mean α between a simulated user and each judge, against the mean α between two " in (
        sentence
    )


def test_simulated_users_copying_one_judge_stand_in_with_enough_pairs() -> None:
    between = agreement_between_sources(campaign(20, copying_ann), resamples=200)

    for agreement in between.values():
        result = agreement.alt_test_result
        assert result is not None and result.passed, agreement.measure
        assert result.winning_rate >= 0.5
        # Against ann herself every item is a tie, which counts for the simulated user.
        assert result.humans[0].rater == "ann" and result.humans[0].advantage == 1.0
        assert agreement.alpha_vs_judges.pairs[0].alpha == pytest.approx(1.0)
    assert sources_verdict(between).outcome == "stand_in"
    for agreement in between.values():
        assert agreement.verdict.stands_in, agreement.measure
        assert agreement.alpha_gap.bounds is not None and agreement.alpha_gap.bounds[1] >= 0
    assert sources_verdict_sentence(between).startswith(
        "Simulated users can stand in for the human judges on C, Sa, F, G: they pass the "
        "alternative annotator test (ε = 0.15), their α with the judges is above 0 and not "
        "significantly below α between judges, and their ratings vary."
    )


def lopsided(n_tasks: int, seed: int = 5) -> list[SessionRow]:
    """Judges who rate the top of every scale 85% of the time (nudged one in twenty times), and
    a simulated user who always rates the top: the audit's constant "yes", on live ratings."""
    rng = np.random.default_rng(seed)
    top = {measure.name: measure.scale[-1] for measure in MEASURES}
    rows = []
    for number in range(n_tasks):
        for system in ("A", "B"):
            task = f"t{number:02d}"
            actual = top if rng.random() < 0.85 else truth(rng)
            rows += [row(task, system, j, nudged(actual, rng), "human") for j in JUDGES]
            rows.append(row(task, system, "sim", top, "simulated"))
    return rows


def test_a_constant_simulated_user_never_stands_in_even_where_it_passes_the_alt_test() -> None:
    between = agreement_between_sources(lopsided(40), resamples=200, seed=2)

    passes = [a.symbol for a in between.values() if a.alt_test_result and a.alt_test_result.passed]
    assert passes  # the test alone would have let the constant stand in here
    for agreement in between.values():
        verdict = agreement.verdict
        assert not verdict.stands_in, agreement.measure
        assert verdict.check("answers_vary").value == 1.0
        assert not verdict.check("answers_vary").passed
    found = sources_verdict(between)
    assert found.passed == ()
    assert found.outcome == "cannot_stand_in"
    sentence = sources_verdict_sentence(between)
    for symbol in passes:
        assert f"{symbol}: " in sentence and "it gives the same answer to every item" in sentence
    with translation.override("zh-hans"):
        chinese = sources_verdict_sentence(between)
    assert chinese.startswith("模拟用户不能在 C、Sa、F、G 上代替人工评测员")
    assert "对每个条目都给出同一个答案" in chinese


def test_too_few_pairs_give_no_verdict_and_say_why() -> None:
    # 6 tasks × 2 systems: 12 pairs per judge, fewer than the 30 the alt-test needs.
    between = agreement_between_sources(campaign(6, copying_ann), resamples=200)

    for agreement in between.values():
        assert agreement.alt_test_result is None
        assert agreement.alt_test_note == (
            "no human annotator has 30 items that the LLM and another human also scored "
            "(the most is 12, by ann)"
        )
        assert agreement.alt_test_most_pairs == 12
        # α is still given, but 6 tasks are too few for an interval that resamples them.
        assert agreement.alpha_vs_judges.value == pytest.approx(
            np.mean([pair.alpha for pair in agreement.alpha_vs_judges.pairs])
        )
        assert agreement.alpha_vs_judges.interval.bounds is None
        assert agreement.alpha_vs_judges.interval.note == (
            "too few items for an interval (6 clusters; a cluster bootstrap needs at least 20)"
        )
    verdict = sources_verdict(between)
    assert verdict.outcome == "no_verdict" and verdict.untested == ("C", "Sa", "F", "G")
    assert sources_verdict_sentence(between).startswith(
        "There is no verdict on whether simulated users can stand in for the human judges: the "
        "alternative annotator test needs a judge with 30 (task, system) pairs that a simulated "
        "user and another judge also rated."
    )


def test_one_judge_leaves_the_alt_test_nothing_to_compare() -> None:
    rows = [r for r in campaign(20, copying_ann) if r.judge in ("ann", "sim")]

    agreement = agreement_between_sources(rows, resamples=0)["satisfaction"]

    assert agreement.n_judges == 1
    assert agreement.alt_test_note == (
        "the alt-test needs at least two human annotators, and 1 scored here"
    )
    assert agreement.alpha_between_judges.value is None


def test_several_simulated_ratings_of_a_pair_count_as_their_rounded_median_or_mode() -> None:
    def rated(task: str, judge: str, completed: int, satisfaction: int, source: str) -> SessionRow:
        ratings = {"completed": completed, "satisfaction": satisfaction, "fluency": 0}
        return row(task, "A", judge, {**ratings, "guidance": 1}, source)

    # ann's (C, Sa) per task, and the simulated ratings of the same pair:
    # flight (0, −1): C 0, 1 → a tie, the lower 0; Sa −2, 0 → median −1.
    # hotel (1, 1): C 1, 1, 0 → mode 1; Sa 0, 1 → median 0.5, rounded up to 1.
    # train (0, 2): C 0 → 0; Sa 2, 2, −2 → median 2.
    judged = {"flight": (0, -1), "hotel": (1, 1), "train": (0, 2)}
    simulated = {
        "flight": [(0, -2), (1, 0)],
        "hotel": [(1, 0), (1, 1), (0, 1)],
        "train": [(0, 2), (0, 2), (0, -2)],
    }
    rows = [rated(task, judge, *judged[task], "human") for task in judged for judge in ("ann",)]
    rows += [rated(task, "bo", 1, 0, "human") for task in judged]
    rows += [
        rated(task, f"sim{number}", completed, score, "simulated")
        for task, ratings in simulated.items()
        for number, (completed, score) in enumerate(ratings)
    ]

    between = agreement_between_sources(rows, resamples=0)

    for measure in ("completed", "satisfaction"):
        ann = between[measure].alpha_vs_judges.pairs[0]
        assert ann.raters == ("LLM", "ann") and ann.n_items == 3
        assert ann.alpha == pytest.approx(1.0), measure
    assert between["completed"].simulated == "mode"
    assert between["satisfaction"].simulated == "rounded median"


def test_its_alpha_intervals_resample_tasks_with_both_systems_together() -> None:
    rows = campaign(20, at_random)

    agreement = agreement_between_sources(rows, resamples=200, seed=3)["completed"]

    # Units are (task, system) pairs in task order, A before B; one column per rater.
    units = sorted({(r.task, r.system) for r in rows})
    rated = {(r.task, r.system, r.judge): float(r.completed) for r in rows}
    column = {
        rater: np.array([rated[task, system, rater] for task, system in units])
        for rater in ("sim", *JUDGES)
    }
    statistic = MeanPairAlphaStatistic(
        [np.column_stack([column["sim"], column[judge]]) for judge in JUDGES], "nominal"
    )
    tasks = [task for task, _ in units]
    values = np.concatenate(
        [statistic(weights) for weights in cluster_resample_weights(tasks, 200, 3)]
    )
    # The BCa interval of those resamples, widened for 20 tasks (`cluster_interval`).
    estimate, jackknife = cluster_estimates({"alpha": statistic}, tasks)["alpha"]
    expected = cluster_interval(values, estimate, jackknife, n_clusters=len(set(tasks)))
    assert agreement.alpha_vs_judges.interval.bounds == pytest.approx(expected)
    assert agreement.alpha_between_judges.interval.bounds is not None
