from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from evalsite.agreement.alpha import AlphaStatistic
from evalsite.agreement.bootstrap import resample_counts
from evalsite.agreement.clusters import (
    cluster_estimates,
    cluster_interval,
    cluster_resample_weights,
)
from liveeval.judge_agreement import agreement_between_sources, judge_agreement
from liveeval.metrics import SessionRow, SystemResult, leaderboard, max_average_turns

PENALTY = {"flight": 30, "hotel": 40, "train": 35}


def session(
    system: str, task: str, judge: str, completed: bool, turns: int, **extra: Any
) -> SessionRow:
    return SessionRow(
        system=system,
        task=task,
        judge=judge,
        completed=completed,
        turns=turns,
        penalty=extra.pop("penalty", PENALTY.get(task, 30)),
        **extra,
    )


def by_system(results: list[SystemResult]) -> dict[str, SystemResult]:
    return {str(result.system): result for result in results}


# System A: completed 8 and 10 turns, failed the hotel task (charged its penalty of 40).
# System B: completed 6 and 12 turns, failed a flight task (charged 30).
# System C: completed nothing, so it is charged 30 + 30 + 40.
SMALL_CAMPAIGN = [
    session(
        "A", "flight", "ann", True, 8, satisfaction=2, fluency=1, guidance=1, auto_completed=True
    ),
    session("A", "flight", "bo", True, 10, satisfaction=1, fluency=1, auto_completed=True),
    session("A", "hotel", "ann", False, 5, satisfaction=-1, fluency=0, guidance=0),
    session("B", "flight", "ann", True, 6, satisfaction=1, auto_completed=True),
    session("B", "flight", "bo", False, 3, satisfaction=-2, auto_completed=True),
    session("B", "hotel", "ann", True, 12, satisfaction=0, auto_completed=False),
    session("C", "flight", "ann", False, 4),
    session("C", "flight", "bo", False, 9),
    session("C", "hotel", "ann", False, 20),
]


# Leaderboard -------------------------------------------------------------------------------


def test_it_averages_completion_and_turns_per_judge_then_over_judges() -> None:
    results = by_system(leaderboard(SMALL_CAMPAIGN, resamples=0))

    # A: ann completed 1 of 2 (8 turns, and the hotel's penalty 40), bo 1 of 1 (10 turns).
    # C = (1/2 + 1) / 2 = 3/4; average turns = ((8 + 40) / 2 + 10) / 2 = (24 + 10) / 2 = 17.
    assert results["A"].completion_rate == pytest.approx(3 / 4)
    assert results["A"].avg_turns == pytest.approx(17)
    # B: ann 2 of 2 (6 and 12 turns), bo 0 of 1 (the flight's penalty 30).
    # C = (1 + 0) / 2 = 1/2; average turns = ((6 + 12) / 2 + 30) / 2 = 39/2.
    assert results["B"].completion_rate == pytest.approx(1 / 2)
    assert results["B"].avg_turns == pytest.approx(39 / 2)
    assert results["A"].n_sessions == 3
    assert results["A"].n_tasks == 2
    assert results["A"].n_judges == 2


def test_it_gives_the_figures_pooled_over_sessions_beside_them() -> None:
    results = by_system(leaderboard(SMALL_CAMPAIGN, resamples=0))

    # A: 2 of 3 sessions completed; (8 + 10 + 40) / 3 = 58/3 turns.
    assert results["A"].pooled_completion_rate == pytest.approx(2 / 3)
    assert results["A"].pooled_avg_turns == pytest.approx(58 / 3)
    # B: 2 of 3 completed; (6 + 30 + 12) / 3 = 16 turns.
    assert results["B"].pooled_completion_rate == pytest.approx(2 / 3)
    assert results["B"].pooled_avg_turns == pytest.approx(16)


def test_it_ranks_by_the_mean_over_judges_not_the_pooled_rate() -> None:
    results = leaderboard(SMALL_CAMPAIGN, resamples=0)

    # Pooled, A and B both complete 2/3 and B's 16 turns would put it first; by SMP2018's
    # definition A completes 3/4 against B's 1/2.
    assert [(result.system, result.rank) for result in results] == [("A", 1), ("B", 2), ("C", 3)]


def test_it_breaks_ties_in_completion_by_fewer_average_turns() -> None:
    # Both judges complete one of two tasks on X and on Y: C = 1/2 for both.
    # X: ann (8 + 40) / 2 = 24, bo (10 + 40) / 2 = 25 → 24.5 turns.
    # Y: ann (6 + 40) / 2 = 23, bo (30 + 12) / 2 = 21 → 22 turns, so Y ranks first.
    rows = [
        session("X", "flight", "ann", True, 8),
        session("X", "hotel", "ann", False, 5),
        session("X", "flight", "bo", True, 10),
        session("X", "hotel", "bo", False, 7),
        session("Y", "flight", "ann", True, 6),
        session("Y", "hotel", "ann", False, 5),
        session("Y", "flight", "bo", False, 3),
        session("Y", "hotel", "bo", True, 12),
    ]

    results = leaderboard(rows, resamples=0)

    assert [(result.system, result.avg_turns) for result in results] == [("Y", 22), ("X", 24.5)]
    assert [result.rank for result in results] == [1, 2]


def test_it_gives_systems_equal_on_completion_and_turns_the_same_rank() -> None:
    # D: ann completes both tasks in 6 turns (C 1, 6 turns), bo fails a train task whose
    # penalty is 33 (C 0, 33 turns): C = 1/2 and average turns = (6 + 33) / 2 = 39/2, exactly
    # B's figures from other counts. A comes first, B and D share rank 2, C is 4th (1, 2, 2, 4).
    tied = [
        session("D", "flight", "ann", True, 6),
        session("D", "hotel", "ann", True, 6),
        session("D", "train", "bo", False, 1, penalty=33),
    ]

    results = leaderboard(SMALL_CAMPAIGN + tied, resamples=0)

    assert [(result.system, result.rank) for result in results] == [
        ("A", 1),
        ("B", 2),
        ("D", 2),
        ("C", 4),
    ]


def test_it_gives_the_most_average_turns_a_system_can_get() -> None:
    # Each task once: flight 30 and hotel 40 (A, B and C share them) → (30 + 40) / 2 = 35.
    assert max_average_turns(SMALL_CAMPAIGN) == 35
    assert max_average_turns([]) is None


def test_it_refuses_a_completed_session_longer_than_its_penalty() -> None:
    with pytest.raises(ValueError, match="completed in 31 turns, more than the task's turn"):
        session("A", "flight", "ann", True, 31)


def test_it_charges_the_mean_penalty_when_no_session_is_completed() -> None:
    # Seven tasks with penalties 30, 32, 34, 34, 36, 36, 38 (sum 240), none completed:
    # 240 / 7 = 34.29, SMP2018's theoretical maximum for C = 0.
    penalties = [30, 32, 34, 34, 36, 36, 38]
    rows = [
        session("A", f"task-{number}", "ann", False, 3, penalty=penalty)
        for number, penalty in enumerate(penalties)
    ]

    (result,) = leaderboard(rows, resamples=0)

    assert result.completion_rate == 0
    assert round(result.avg_turns, 2) == 34.29


def test_it_means_the_ratings_that_were_given() -> None:
    results = by_system(leaderboard(SMALL_CAMPAIGN, resamples=0))

    # A: Sa (2 + 1 − 1) / 3 = 2/3; F (1 + 1 + 0) / 3 = 2/3; G given twice: (1 + 0) / 2.
    assert results["A"].mean_satisfaction == pytest.approx(2 / 3)
    assert results["A"].mean_fluency == pytest.approx(2 / 3)
    assert results["A"].mean_guidance == pytest.approx(1 / 2)
    assert results["B"].mean_fluency is None
    assert results["B"].notes["mean_fluency"] == "no session of this system has a fluency rating"


def test_it_sets_the_automatic_verdict_against_the_judges() -> None:
    results = by_system(leaderboard(SMALL_CAMPAIGN, resamples=0))

    # B: automatic verdicts yes, yes, no → 2/3 completed. Judges said yes, no, yes, so they
    # agree on the first session only: 1/3.
    assert results["B"].auto_completion_rate == pytest.approx(2 / 3)
    assert results["B"].auto_agreement == pytest.approx(1 / 3)
    # A: two verdicts, both yes, both matching the judges.
    assert results["A"].auto_completion_rate == 1
    assert results["A"].auto_agreement == 1
    assert results["C"].auto_completion_rate is None
    assert "checked from its bookings" in results["C"].notes["auto_agreement"]


def cluster_campaign(n_tasks: int = 12) -> list[SessionRow]:
    """Twelve tasks, two judges each, on two systems, with a fixed pattern of outcomes."""
    rows = []
    for number in range(n_tasks):
        task = f"t{number:02d}"
        for judge in ("ann", "bo"):
            for system, completed in (
                ("A", (number + len(judge)) % 3 != 0),
                ("B", number % 4 == 0),
            ):
                rows.append(
                    session(system, task, judge, completed, 4 + number, penalty=20 + number)
                )
    return rows


def test_it_resamples_tasks_with_all_their_sessions_for_the_intervals() -> None:
    rows = cluster_campaign()
    tasks = sorted({row.task for row in rows})

    results = by_system(leaderboard(rows, resamples=300, seed=7))

    completion, turns = [], []
    for weights in resample_counts(len(tasks), 300, 7):
        for counts in weights:
            drawn = [
                row
                for task, count in zip(tasks, counts, strict=True)
                for _ in range(int(count))
                for row in rows
                if row.task == task and row.system == "A"
            ]
            completion.append(sum(row.completed for row in drawn) / len(drawn))
            turns.append(sum(row.charged_turns for row in drawn) / len(drawn))
    assert results["A"].completion_ci == pytest.approx(
        tuple(np.quantile(completion, [0.025, 0.975]))
    )
    assert results["A"].avg_turns_ci == pytest.approx(tuple(np.quantile(turns, [0.025, 0.975])))
    interval = results["A"].completion_ci
    assert interval is not None and interval[0] < results["A"].completion_rate < interval[1]


def test_its_intervals_average_over_judges_on_each_resample_of_tasks() -> None:
    # bo holds only the even tasks, so judges weigh differently than sessions do.
    rows = [
        row for row in cluster_campaign() if row.judge == "ann" or int(str(row.task)[1:]) % 2 == 0
    ]
    tasks = sorted({row.task for row in rows})

    results = by_system(leaderboard(rows, resamples=200, seed=5))

    completion = []
    for weights in resample_counts(len(tasks), 200, 5):
        for counts in weights:
            rates = []
            for judge in ("ann", "bo"):
                drawn = [
                    row.completed
                    for task, count in zip(tasks, counts, strict=True)
                    for _ in range(int(count))
                    for row in rows
                    if row.task == task and row.system == "A" and row.judge == judge
                ]
                if drawn:
                    rates.append(sum(drawn) / len(drawn))
            completion.append(sum(rates) / len(rates))
    assert results["A"].completion_ci == pytest.approx(
        tuple(np.quantile(completion, [0.025, 0.975]))
    )


def test_it_reproduces_its_intervals_from_the_seed() -> None:
    rows = cluster_campaign()

    first = by_system(leaderboard(rows, resamples=200, seed=3))
    again = by_system(leaderboard(rows, resamples=200, seed=3))
    other = by_system(leaderboard(rows, resamples=200, seed=4))

    assert first["B"].completion_ci == again["B"].completion_ci
    assert first["B"].avg_turns_ci == again["B"].avg_turns_ci
    assert first["B"].avg_turns_ci != other["B"].avg_turns_ci


def test_it_gives_no_interval_for_one_task_and_says_why() -> None:
    (result,) = leaderboard([session("A", "flight", "ann", True, 8)], resamples=100)

    assert result.rank == 1
    assert result.completion_ci is None
    assert result.avg_turns_ci is None
    assert result.notes["completion_ci"] == (
        "the system was judged on 1 task(s); a bootstrap CI over tasks needs at least 10"
    )


def test_it_says_when_resampling_is_turned_off() -> None:
    results = by_system(leaderboard(cluster_campaign(), resamples=0))

    assert results["A"].completion_ci is None
    assert results["A"].notes["avg_turns_ci"] == "bootstrap resampling was turned off (0 resamples)"


def test_it_lists_nothing_without_sessions() -> None:
    assert leaderboard([]) == []


def test_it_keeps_human_and_simulated_sessions_apart() -> None:
    simulated = [
        session("A", "flight", "sim-1", False, 7, source="simulated"),
        session("A", "hotel", "sim-1", True, 9, source="simulated"),
    ]
    rows = SMALL_CAMPAIGN + simulated

    human = by_system(leaderboard(rows, resamples=0))
    machine = by_system(leaderboard(rows, source="simulated", resamples=0))
    everyone = by_system(leaderboard(rows, source=None, resamples=0))

    assert human["A"].n_sessions == 3
    # Simulated A: completed the hotel task only; (30 + 9) / 2 = 19.5 turns.
    assert list(machine) == ["A"]
    assert machine["A"].completion_rate == pytest.approx(1 / 2)
    assert machine["A"].avg_turns == pytest.approx(19.5)
    assert everyone["A"].n_sessions == 5


def test_it_reads_rows_given_as_dicts() -> None:
    rows = [
        {
            "system": "A",
            "task": "flight",
            "judge": "ann",
            "completed": True,
            "turns": 8,
            "penalty": 30,
            "satisfaction": 2,
            "id": 17,
        },
        {
            "system": "A",
            "task": "hotel",
            "judge": "ann",
            "completed": False,
            "turns": 5,
            "penalty": 40,
        },
    ]

    (result,) = leaderboard(rows, resamples=0)

    # (8 + 40) / 2 = 24 turns; C = 1/2.
    assert result.avg_turns == 24
    assert result.completion_rate == 0.5
    assert result.mean_satisfaction == 2


def test_it_rejects_a_row_without_turns() -> None:
    with pytest.raises(ValueError, match="a session row needs 'turns'"):
        leaderboard([{"system": "A", "task": "t", "judge": "j", "completed": True, "penalty": 3}])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"satisfaction": 3}, "satisfaction 3 is outside -2..2"),
        ({"fluency": -2}, "fluency -2 is outside -1..1"),
        ({"guidance": 2}, "guidance 2 is outside 0..1"),
        ({"turns": -1}, "turns cannot be negative"),
        ({"penalty": 0}, "the turn penalty must be at least 1"),
        ({"source": "robot"}, "source must be human or simulated"),
    ],
)
def test_it_rejects_values_off_their_scale(changes: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {"system": "A", "task": "flight", "judge": "ann", "completed": True}
    values.update(turns=8, penalty=30)

    with pytest.raises(ValueError, match=message):
        SessionRow(**(values | changes))


# Agreement among judges --------------------------------------------------------------------


def test_it_measures_agreement_on_completion_with_nominal_alpha() -> None:
    # Two judges on four (task, system) pairs: (1, 1), (0, 0), (1, 0), (1, 1).
    # Coincidences: o_00 = 2, o_11 = 2 + 2 = 4, o_01 = o_10 = 1; n_0 = 3, n_1 = 5, n = 8.
    # α = 1 − (n − 1)(o_01 + o_10) / (2 n_0 n_1) = 1 − 7 · 2 / 30 = 8/15.
    verdicts = {("flight", "A"): (1, 1), ("hotel", "A"): (0, 0), ("train", "A"): (1, 0)}
    verdicts[("flight", "B")] = (1, 1)
    rows = [
        session(system, task, judge, bool(verdict), 6)
        for (task, system), pair in verdicts.items()
        for judge, verdict in zip(("ann", "bo"), pair, strict=True)
    ]

    result = judge_agreement(rows)["completed"]

    assert result.alpha == pytest.approx(8 / 15)
    assert result.level == "nominal"
    assert (result.n_units, result.n_judges) == (4, 2)
    assert result.alpha_ci is None
    # Three tasks hold the four pairs; the interval resamples tasks and needs 20.
    assert result.note == (
        "no CI: too few items for an interval (3 clusters; a cluster bootstrap needs at least 20)"
    )


def test_it_measures_agreement_on_satisfaction_with_ordinal_alpha() -> None:
    # Sa from two judges on three pairs: (2, 1), (0, 0), (−1, −2).
    # Counts n_−2 = n_−1 = n_1 = n_2 = 1, n_0 = 2 (n = 6); midranks −2: 0.5, −1: 1.5, 0: 3,
    # 1: 4.5, 2: 5.5, and the ordinal distance is the squared midrank difference.
    # Observed Σ o·δ = 2 · 1² + 2 · 1² = 4. Expected Σ n_c n_k δ over ordered pairs =
    # 2 · (1 + 12.5 + 16 + 25 + 4.5 + 9 + 16 + 4.5 + 12.5 + 1) = 204.
    # α = 1 − (n − 1) · 4 / 204 = 1 − 20/204 = 46/51.
    scores = {"flight": (2, 1), "hotel": (0, 0), "train": (-1, -2)}
    rows = [
        session("A", task, judge, True, 6, satisfaction=score)
        for task, pair in scores.items()
        for judge, score in zip(("ann", "bo"), pair, strict=True)
    ]

    result = judge_agreement(rows)["satisfaction"]

    assert result.alpha == pytest.approx(46 / 51)
    assert result.level == "ordinal"


def test_it_reports_alpha_as_null_with_a_reason_for_a_single_judge() -> None:
    rows = [session("A", "flight", "ann", True, 6), session("A", "hotel", "ann", False, 6)]

    agreement = judge_agreement(rows)

    assert agreement["completed"].alpha is None
    assert agreement["completed"].note == "only one rater scored these items"
    assert agreement["fluency"].note == "no session has a fluency rating (F)"


def test_it_reports_every_measure_as_null_without_ratings() -> None:
    agreement = judge_agreement([])

    assert list(agreement) == ["completed", "satisfaction", "fluency", "guidance"]
    assert all(result.alpha is None and result.n_units == 0 for result in agreement.values())
    assert agreement["completed"].note == "no session has a task completion rating (C)"


def test_it_rejects_a_judge_rating_the_same_pair_twice() -> None:
    rows = [session("A", "flight", "ann", True, 6), session("A", "flight", "ann", False, 9)]

    with pytest.raises(ValueError, match="judge ann rated task flight on system A more than once"):
        judge_agreement(rows)


def test_it_bootstraps_alpha_over_enough_tasks() -> None:
    agreement = judge_agreement(cluster_campaign(24), resamples=200, seed=1)["completed"]

    assert agreement.alpha is not None and agreement.alpha_ci is not None
    assert agreement.alpha_ci[0] <= agreement.alpha <= agreement.alpha_ci[1]
    assert agreement.n_units == 48


def test_its_alpha_interval_resamples_tasks_with_both_systems_together() -> None:
    rows = cluster_campaign(24)

    agreement = judge_agreement(rows, resamples=200, seed=1)["completed"]

    # Units are (task, system) pairs in task order, A before B; judges ann and bo are columns.
    units = sorted({(row.task, row.system) for row in rows})
    verdicts = {(row.task, row.system, row.judge): float(row.completed) for row in rows}
    matrix = [[verdicts[task, system, judge] for judge in ("ann", "bo")] for task, system in units]
    statistic = AlphaStatistic(matrix, "nominal")
    tasks = [task for task, _ in units]
    values = np.concatenate(
        [statistic(weights) for weights in cluster_resample_weights(tasks, 200, 1)]
    )
    # The BCa interval of those resamples, widened for 24 tasks (`cluster_interval`).
    estimate, jackknife = cluster_estimates({"alpha": statistic}, tasks)["alpha"]
    expected = cluster_interval(values, estimate, jackknife, n_clusters=len(set(tasks)))
    assert agreement.alpha_ci == pytest.approx(expected)


def test_it_gives_no_alpha_interval_over_too_few_tasks_and_says_why() -> None:
    agreement = judge_agreement(cluster_campaign(12), resamples=200, seed=1)["completed"]

    assert agreement.alpha is not None and agreement.alpha_ci is None
    assert agreement.note == (
        "no CI: too few items for an interval (12 clusters; a cluster bootstrap needs at least 20)"
    )


# Simulated users against human judges ------------------------------------------------------


def source_campaign() -> list[SessionRow]:
    human = {"flight": ((1, 2), (1, 1)), "hotel": ((0, 0), (1, -1)), "train": ((0, -2), (0, -2))}
    simulated = {"flight": (1, 2), "hotel": (0, -1), "train": (1, 0)}
    rows = [
        session("A", task, judge, bool(completed), 6, satisfaction=score)
        for task, ratings in human.items()
        for judge, (completed, score) in zip(("ann", "bo"), ratings, strict=True)
    ]
    rows += [
        session("A", task, "sim", bool(completed), 6, satisfaction=score, source="simulated")
        for task, (completed, score) in simulated.items()
    ]
    return rows


def test_it_correlates_simulated_with_human_ratings_per_pair() -> None:
    # Human Sa means 1.5, −0.5, −2 against simulated 2, −1, 0. Deviations from the means
    # (−1/3 and 1/3): (11, −1, −10)/6 and (10, −8, −2)/6, so
    # r = 138 / √(222 · 168) = 0.7146. Ranks (3, 2, 1) and (3, 1, 2): ρ = 1 − 6 · 2 / 24 = 0.5.
    result = agreement_between_sources(source_campaign())["satisfaction"]

    assert result.n_pairs == 3
    assert result.pearson is not None and result.spearman is not None
    assert result.pearson.statistic == pytest.approx(138 / math.sqrt(222 * 168))
    assert result.spearman.statistic == pytest.approx(0.5)


def test_it_counts_exact_matches_between_simulated_and_human_verdicts() -> None:
    # C: flight humans (1, 1) vs simulated 1 → 2 of 2 match; hotel (0, 1) vs 0 → 1 of 2;
    # train (0, 0) vs 1 → 0 of 2. 3 of 6 comparisons agree.
    result = agreement_between_sources(source_campaign())["completed"]

    assert result.exact_agreement == pytest.approx(0.5)
    # Its chance levels: 1/2 on a two-point scale; from the shares over the 6 comparisons,
    # simulated 1 in 4 (flight, train) and 0 in 2, humans 1 in 3 and 0 in 3: 4/6·3/6 + 2/6·3/6.
    assert result.exact_agreement_chance_uniform == pytest.approx(0.5)
    assert result.exact_agreement_chance_marginals == pytest.approx(0.5)
    # Sa on five points: simulated 2, −1, 0 (each in 2 of 6 comparisons) against humans
    # 2, 1, 0, −1, −2, −2: 3 · (1/3 · 1/6) = 1/6.
    satisfaction = agreement_between_sources(source_campaign())["satisfaction"]
    assert satisfaction.exact_agreement_chance_uniform == pytest.approx(1 / 5)
    assert satisfaction.exact_agreement_chance_marginals == pytest.approx(1 / 6)


def test_it_gives_no_correlation_on_too_few_shared_pairs() -> None:
    rows = [row for row in source_campaign() if row.task != "train"]

    result = agreement_between_sources(rows)["satisfaction"]

    assert result.n_pairs == 2
    assert result.pearson is None
    assert result.note == (
        "no correlation: only 2 item(s) have both the human mean and the simulated mean; "
        "a correlation needs at least 3"
    )
    # Sa: flight (2, 1) vs 2 → 1 of 2; hotel (0, −1) vs −1 → 1 of 2.
    assert result.exact_agreement == pytest.approx(0.5)


def test_it_says_when_no_pair_was_rated_by_both_sources() -> None:
    result = agreement_between_sources(SMALL_CAMPAIGN)["guidance"]

    assert result.n_pairs == 0
    assert result.exact_agreement is None
    assert result.note == (
        "no (task, system) pair has both a human and a simulated guidance rating (G)"
    )
