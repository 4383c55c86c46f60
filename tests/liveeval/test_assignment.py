from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from itertools import pairwise

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from liveeval.assignment import (
    JudgeId,
    PlanError,
    Replan,
    Slot,
    SlotStatus,
    SystemId,
    TaskId,
    add_judges,
    check_plan,
    make_plan,
    replan_without,
    short_pairs,
)

PENDING, STARTED, DONE = SlotStatus.PENDING, SlotStatus.STARTED, SlotStatus.DONE


@dataclass(frozen=True)
class Shape:
    tasks: list[TaskId]
    systems: list[SystemId]
    judges: list[JudgeId]
    k: int
    seed: int

    def plan(self) -> list[Slot]:
        return make_plan(self.tasks, self.systems, self.judges, self.k, self.seed)


@st.composite
def shapes(draw: st.DrawFn, min_judges: int = 1) -> Shape:
    n_judges = draw(st.integers(min_judges, 7))
    return Shape(
        tasks=[f"task-{i}" for i in range(draw(st.integers(1, 5)))],
        systems=list(range(draw(st.integers(1, 4)))),
        judges=[f"judge-{i}" for i in range(n_judges)],
        k=draw(st.integers(1, n_judges)),
        seed=draw(st.integers(0, 2**32)),
    )


def applied(slots: list[Slot], change: Replan) -> list[Slot]:
    removed = {(slot.judge, slot.pair) for slot in change.removed}
    return [slot for slot in slots if (slot.judge, slot.pair) not in removed] + change.added


def queue(slots: list[Slot], judge: JudgeId) -> list[Slot]:
    return sorted((slot for slot in slots if slot.judge == judge), key=lambda s: s.position)


def loads(slots: list[Slot]) -> Counter[JudgeId]:
    return Counter(slot.judge for slot in slots)


# The opening plan --------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(shapes())
def test_it_keeps_every_guarantee_when_a_campaign_opens(shape: Shape) -> None:
    plan = shape.plan()

    assert check_plan(plan, shape.tasks, shape.systems, shape.judges, shape.k) == []
    assert len(plan) == shape.k * len(shape.tasks) * len(shape.systems)
    for judge in shape.judges:
        assert [slot.position for slot in queue(plan, judge)] == list(range(loads(plan)[judge]))


@settings(max_examples=200, deadline=None)
@given(
    n_systems=st.integers(1, 4),
    judges_per_system=st.integers(1, 3),
    n_tasks=st.integers(1, 5),
    k=st.integers(1, 12),
    seed=st.integers(0, 2**32),
)
def test_it_gives_every_system_every_position_equally_often_when_judges_are_a_multiple(
    n_systems: int, judges_per_system: int, n_tasks: int, k: int, seed: int
) -> None:
    n_judges = n_systems * judges_per_system
    assume(k <= n_judges and (k * n_tasks * n_systems) % n_judges == 0)
    plan = make_plan(list(range(n_tasks)), list(range(n_systems)), list(range(n_judges)), k, seed)
    load = k * n_tasks * n_systems // n_judges

    for position in range(load):
        at_position = Counter(slot.system for slot in plan if slot.position == position)
        assert at_position == dict.fromkeys(range(n_systems), judges_per_system)


@st.composite
def roomy_shapes(draw: st.DrawFn) -> Shape:
    """Campaigns where every judge holds at least four pairs of every system."""
    n_judges = draw(st.integers(1, 5))
    k = draw(st.integers(1, n_judges))
    # K × tasks ≥ 4 × judges makes every load K·T·S / J at least 4·S.
    fewest_tasks = -(-4 * n_judges // k)
    return Shape(
        tasks=[f"task-{i}" for i in range(draw(st.integers(fewest_tasks, fewest_tasks + 3)))],
        systems=list(range(draw(st.integers(1, 4)))),
        judges=[f"judge-{i}" for i in range(n_judges)],
        k=k,
        seed=draw(st.integers(0, 2**32)),
    )


@settings(max_examples=200, deadline=None)
@given(roomy_shapes())
def test_it_never_gives_a_judge_the_same_task_twice_in_a_row_with_four_pairs_per_system(
    shape: Shape,
) -> None:
    plan = shape.plan()
    assert min(loads(plan)[judge] for judge in shape.judges) >= 4 * len(shape.systems)

    for judge in shape.judges:
        tasks = [slot.task for slot in queue(plan, judge)]
        assert all(first != second for first, second in pairwise(tasks))


def test_it_rotates_systems_across_judges_like_a_latin_square() -> None:
    # Two judges, two systems, one task, K = 1: each judge takes one pair, and the two
    # judges' first (and only) positions hold different systems.
    plan = make_plan(["flight"], ["A", "B"], ["ann", "bo"], 1, seed=3)

    assert sorted(slot.system for slot in plan if slot.position == 0) == ["A", "B"]


def test_it_makes_the_same_plan_from_the_same_seed() -> None:
    tasks, systems, judges = list(range(6)), ["A", "B", "C"], ["ann", "bo", "cy"]

    assert make_plan(tasks, systems, judges, 2, seed=11) == make_plan(
        tasks, systems, judges, 2, seed=11
    )


def test_it_orders_queues_differently_for_another_seed() -> None:
    tasks, systems, judges = list(range(6)), ["A", "B", "C"], ["ann", "bo", "cy"]

    first = make_plan(tasks, systems, judges, 2, seed=11)
    second = make_plan(tasks, systems, judges, 2, seed=12)

    assert [(s.judge, s.pair) for s in first] != [(s.judge, s.pair) for s in second]


def test_it_refuses_a_k_larger_than_the_number_of_judges() -> None:
    with pytest.raises(PlanError, match="K = 3 judges per pair needs at least 3 judges"):
        make_plan(["flight"], ["A"], ["ann", "bo"], 3, seed=0)


@pytest.mark.parametrize(
    ("tasks", "systems", "judges", "k", "message"),
    [
        ([], ["A"], ["ann"], 1, "at least one task"),
        (["flight"], [], ["ann"], 1, "at least one system"),
        (["flight"], ["A"], ["ann"], 0, "K must be at least 1"),
        (["flight", "flight"], ["A"], ["ann"], 1, "task 'flight' is listed more than once"),
        (["flight"], ["A"], ["ann", "ann"], 1, "judge 'ann' is listed more than once"),
    ],
)
def test_it_refuses_a_campaign_that_cannot_be_planned(
    tasks: list[TaskId], systems: list[SystemId], judges: list[JudgeId], k: int, message: str
) -> None:
    with pytest.raises(PlanError, match=message):
        make_plan(tasks, systems, judges, k, seed=0)


# A judge leaving ---------------------------------------------------------------------------


@st.composite
def departures(draw: st.DrawFn) -> tuple[Shape, list[Slot], JudgeId]:
    shape = draw(shapes(min_judges=2))
    plan = shape.plan()
    statuses = draw(st.lists(st.sampled_from(SlotStatus), min_size=len(plan), max_size=len(plan)))
    slots = [replace(slot, status=status) for slot, status in zip(plan, statuses, strict=True)]
    return shape, slots, draw(st.sampled_from(shape.judges))


@settings(max_examples=200, deadline=None)
@given(departures())
def test_it_hands_a_leaving_judges_pending_work_to_others_keeping_the_guarantees(
    departure: tuple[Shape, list[Slot], JudgeId],
) -> None:
    shape, slots, leaving = departure
    remaining = [judge for judge in shape.judges if judge != leaving]

    change = replan_without(
        slots, leaving, remaining, tasks=shape.tasks, systems=shape.systems, k=shape.k, seed=5
    )
    after = applied(slots, change)

    assert all(slot.status == PENDING for slot in change.removed)
    assert all(slot.judge in remaining for slot in change.added)
    assert not any(slot.judge == leaving and slot.status == PENDING for slot in after)
    assert [s for s in slots if s.status != PENDING] == [s for s in after if s.status != PENDING]
    assert change.flagged == short_pairs(after, shape.tasks, shape.systems, shape.k)
    for pair in change.flagged:
        # Short only because every remaining judge already holds the pair.
        assert {slot.judge for slot in after if slot.pair == pair} >= set(remaining)
    expected_shortfalls = {
        f"task {task} on system {system} has "
        f"{sum(slot.pair == (task, system) for slot in after)} judge(s), not {shape.k}"
        for task, system in change.flagged
    }
    problems = check_plan(after, shape.tasks, shape.systems, remaining, shape.k)
    assert {p for p in problems if "loads must differ" not in p} == expected_shortfalls
    if all(slot.status == PENDING for slot in slots):
        assert not any("loads must differ" in problem for problem in problems)


def test_it_keeps_k_judges_before_balance_when_only_one_judge_can_take_the_work() -> None:
    # Ann already holds both of Xi's pending pairs, so Bo must take them both: Bo ends with
    # 6 pairs and Ann with 4, since Ann's pending pairs are all ones Bo already holds.
    slots = [
        Slot("xi", 0, 0, 0, STARTED),
        Slot("xi", 0, 2, 1, DONE),
        Slot("xi", 0, 1, 2),
        Slot("xi", 1, 0, 3),
        Slot("ann", 0, 1, 0),
        Slot("ann", 1, 0, 1, DONE),
        Slot("ann", 1, 2, 2),
        Slot("ann", 1, 1, 3),
        Slot("bo", 1, 2, 0, DONE),
        Slot("bo", 1, 1, 1, DONE),
        Slot("bo", 0, 0, 2, STARTED),
        Slot("bo", 0, 2, 3, DONE),
    ]

    change = replan_without(
        slots, "xi", ["ann", "bo"], tasks=[0, 1], systems=[0, 1, 2], k=2, seed=0
    )

    assert change.added == [Slot("bo", 0, 1, 4), Slot("bo", 1, 0, 5)]
    assert change.removed == [Slot("xi", 0, 1, 2), Slot("xi", 1, 0, 3)]
    assert change.flagged == []
    assert check_plan(applied(slots, change), [0, 1], [0, 1, 2], ["ann", "bo"], 2) == [
        "judge bo holds 6 pairs and judge ann 4; loads must differ by at most one"
    ]


def test_it_flags_pairs_that_no_remaining_judge_can_take() -> None:
    # K = 2 with two judges: when Bo leaves, Ann holds every pair, so Bo's pending pairs
    # have nowhere to go; the pair Bo started stays with Bo.
    plan = make_plan(["flight"], ["A", "B"], ["ann", "bo"], 2, seed=1)
    started = next(slot for slot in plan if slot.judge == "bo" and slot.position == 0)
    slots = [replace(slot, status=STARTED) if slot == started else slot for slot in plan]
    still_pending = next(slot for slot in slots if slot.judge == "bo" and slot.position == 1)

    change = replan_without(slots, "bo", ["ann"], tasks=["flight"], systems=["A", "B"], k=2, seed=0)

    assert change.added == []
    assert change.removed == [still_pending]
    assert change.flagged == [still_pending.pair]


def test_it_refuses_a_judge_who_both_leaves_and_remains() -> None:
    with pytest.raises(PlanError, match="cannot both leave and remain"):
        replan_without([], "ann", ["ann"], tasks=["flight"], systems=["A"], k=1, seed=0)


# Judges joining ----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(shapes(), st.integers(1, 3))
def test_it_shares_pending_work_with_judges_added_to_an_open_campaign(
    shape: Shape, n_new: int
) -> None:
    plan = shape.plan()
    new_judges = [f"new-{i}" for i in range(n_new)]

    change = add_judges(
        plan, new_judges, shape.judges, tasks=shape.tasks, systems=shape.systems, k=shape.k, seed=9
    )

    everyone = [*shape.judges, *new_judges]
    assert check_plan(applied(plan, change), shape.tasks, shape.systems, everyone, shape.k) == []
    assert change.flagged == []


def test_it_moves_the_work_a_busy_judge_would_reach_last_to_a_new_judge() -> None:
    plan = make_plan(["flight", "hotel"], ["A", "B"], ["ann"], 1, seed=4)
    last_two = {slot.pair for slot in plan if slot.position >= 2}

    change = add_judges(
        plan, ["bo"], ["ann"], tasks=["flight", "hotel"], systems=["A", "B"], k=1, seed=0
    )

    assert {slot.pair for slot in change.added} == last_two
    assert [slot.position for slot in change.added] == [0, 1]
    assert {slot.position for slot in change.removed} == {2, 3}


def test_it_gives_flagged_pairs_to_a_judge_who_joins() -> None:
    plan = make_plan(["flight"], ["A", "B"], ["ann", "bo"], 2, seed=1)
    after_leaving = applied(
        plan, replan_without(plan, "bo", ["ann"], tasks=["flight"], systems=["A", "B"], k=2, seed=0)
    )

    change = add_judges(
        after_leaving, ["cy"], ["ann"], tasks=["flight"], systems=["A", "B"], k=2, seed=0
    )

    assert sorted(slot.system for slot in change.added if slot.judge == "cy") == ["A", "B"]
    assert change.flagged == []


def test_it_refuses_to_add_a_judge_already_in_the_campaign() -> None:
    with pytest.raises(PlanError, match="judge 'ann' is listed more than once"):
        add_judges([], ["ann"], ["ann"], tasks=["flight"], systems=["A"], k=1, seed=0)


# Checking a plan ---------------------------------------------------------------------------


def test_it_states_every_broken_guarantee_in_words() -> None:
    slots = [
        Slot("ann", "flight", "A", 0),
        Slot("ann", "flight", "A", 1),
        Slot("ann", "hotel", "A", 1),
        Slot("ann", "train", "A", 2),
        Slot("ann", "flight", "Z", 3),
        Slot("xi", "hotel", "A", 0),
    ]

    problems = check_plan(slots, ["flight", "hotel"], ["A"], ["ann", "bo"], 1)

    assert problems == [
        "judge ann holds task train, which is not in the campaign",
        "judge ann holds system Z, which is not in the campaign",
        "judge ann holds task flight on system A 2 times",
        "judge ann has 2 slots at position 1",
        "task hotel on system A has 2 judge(s), not 1",
        "judge xi is not in the campaign but holds 1 pending slot(s)",
        "judge ann holds 5 pairs and judge bo 0; loads must differ by at most one",
    ]


def test_one_judge_per_pair_is_said_in_the_singular() -> None:
    with pytest.raises(PlanError, match="K = 1 judge per pair needs at least 1 judge;"):
        make_plan(["flight"], ["A"], [], 1, seed=0)
