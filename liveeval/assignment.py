"""The plan of a live-judging campaign: which judge meets which (task, system) pair, and when.

Plain functions over plain values (ids are ints or strings); the views store the slots and call
these functions when a campaign opens, when a judge leaves and when judges are added.

The guarantees, which `check_plan` states as readable violations:

- every (task, system) pair is held by exactly K distinct judges;
- no judge holds the same pair twice;
- the judges' loads differ by at most one.

The opening plan also rotates each judge's queue Latin-square style. With the systems in a
seeded random order s_0 … s_{S-1}, position p of the judge in seeded random place i holds
system s_{(p + i) mod S}. When the number of judges is a multiple of S, every system therefore
takes every position equally often across judges, so no system is always met first, when a
judge is fresh, or last, when they are tired. When that rotation cannot share the pairs out
evenly, each judge's queue continues the system cycle where the previous judge's stopped.

Tasks are shuffled with the same seed. When every judge holds at least four pairs of every
system (or there is one system), no judge meets the same task twice in a row, so that two
systems are never compared on a task straight after one another by the same person.

A judge who leaves keeps what they finished or started; their pending pairs go to the
remaining judges who do not hold them yet, least-loaded first. Judges added to an open campaign
take pending work over from the busiest judges, the work those judges would have reached last.
A pair that fewer than K judges can take is flagged rather than given twice to one judge.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import accumulate
from typing import TypeAlias

import numpy as np

JudgeId: TypeAlias = int | str
TaskId: TypeAlias = int | str
SystemId: TypeAlias = int | str
Pair: TypeAlias = tuple[TaskId, SystemId]

# Fewer pairs of one system than this in a judge's queue can force the same task twice in a
# row; from this many on, spacing tasks out always succeeds (see `_space_out_tasks`).
PAIRS_PER_SYSTEM_FOR_SPACING = 4


class PlanError(ValueError):
    """A campaign whose plan cannot be made or changed as asked; the message says why."""


class SlotStatus(StrEnum):
    PENDING = "pending"
    STARTED = "started"
    DONE = "done"


@dataclass(frozen=True)
class Slot:
    """One pair in one judge's queue; ``position`` is its 0-based place in that queue."""

    judge: JudgeId
    task: TaskId
    system: SystemId
    position: int
    status: SlotStatus = SlotStatus.PENDING

    @property
    def pair(self) -> Pair:
        return (self.task, self.system)


@dataclass(frozen=True)
class Replan:
    """How a plan changes: slots to delete, slots to create, and pairs short of K judges."""

    added: list[Slot]
    removed: list[Slot]
    flagged: list[Pair]


def _check_distinct(values: Sequence[JudgeId], what: str) -> None:
    repeated = [value for value, count in Counter(values).items() if count > 1]
    if repeated:
        raise PlanError(f"{what} {repeated[0]!r} is listed more than once")


def _check_campaign(
    tasks: Sequence[TaskId], systems: Sequence[SystemId], judges: Sequence[JudgeId], k: int
) -> None:
    if not tasks:
        raise PlanError("a campaign needs at least one task")
    if not systems:
        raise PlanError("a campaign needs at least one system")
    if k < 1:
        raise PlanError(f"K must be at least 1, not {k}")
    if k > len(judges):
        judges_word = "judge" if k == 1 else "judges"
        raise PlanError(
            f"K = {k} {judges_word} per pair needs at least {k} {judges_word}; the campaign has "
            f"{len(judges)}"
        )
    _check_distinct(tasks, "task")
    _check_distinct(systems, "system")
    _check_distinct(judges, "judge")


# The opening plan --------------------------------------------------------------------------


def _covers_evenly(loads: Sequence[int], offsets: Sequence[int], n_systems: int) -> bool:
    """Whether queues rotated by ``offsets`` hold every system equally often in total."""
    counts = [0] * n_systems
    for load, offset in zip(loads, offsets, strict=True):
        full, rest = divmod(load, n_systems)
        for system in range(n_systems):
            counts[system] += full
        for step in range(rest):
            counts[(offset + step) % n_systems] += 1
    return len(set(counts)) == 1


def _rotation_offsets(loads: Sequence[int], n_systems: int) -> list[int]:
    """Where each judge's system cycle starts: at their own place in the rotation if possible.

    Rotating by the judge's place gives every position to every system equally often when the
    number of judges is a multiple of S; the leftover pairs of uneven queues then still cover
    the systems evenly. Otherwise consecutive queues continue one cycle, which always does.
    """
    rotation = [place % n_systems for place in range(len(loads))]
    if _covers_evenly(loads, rotation, n_systems):
        return rotation
    return [start % n_systems for start in accumulate([0, *loads[:-1]])]


def _space_out_tasks(queue: list[TaskId], offset: int, n_systems: int) -> None:
    """Reorder each system's tasks within its positions so that no task follows itself.

    The systems are done in queue order, each by a minimum-cost matching of its tasks to its
    positions, where a task costs more than any tie-break for every fixed neighbour holding it.
    Each position then has at most two fixed neighbours, and each task sits at most once in each
    neighbouring system's positions, so every position rules out at most two tasks and every
    task at most two positions. With four or more positions Hall's condition holds and the
    matching leaves no repeat; ties keep the shuffled order.
    """
    fixed: set[int] = set()
    for step in range(n_systems):
        system = (offset + step) % n_systems
        positions = [p for p in range(len(queue)) if (p + offset) % n_systems == system]
        if not positions:
            continue
        tasks = [queue[p] for p in positions]
        size = len(tasks)
        cost = (np.arange(size)[:, None] != np.arange(size)[None, :]).astype(np.int64)
        for row, position in enumerate(positions):
            for neighbour in (position - 1, position + 1):
                if neighbour in fixed:
                    for column, task in enumerate(tasks):
                        if task == queue[neighbour]:
                            cost[row, column] += size + 1
        # Imported here: scipy.optimize takes a quarter of a second to import, which every
        # process would pay at start-up for a function only campaign planning calls.
        from scipy.optimize import linear_sum_assignment

        rows, columns = linear_sum_assignment(cost)
        for row, column in zip(rows, columns, strict=True):
            queue[positions[row]] = tasks[column]
        fixed.update(positions)


def make_plan(
    tasks: Sequence[TaskId],
    systems: Sequence[SystemId],
    judges: Sequence[JudgeId],
    k: int,
    seed: int,
) -> list[Slot]:
    """The opening plan: every (task, system) pair to exactly ``k`` distinct judges.

    The same arguments always give the same plan. Raises `PlanError` when the campaign cannot
    be planned, for instance when ``k`` exceeds the number of judges.
    """
    _check_campaign(tasks, systems, judges, k)
    rng = random.Random(seed)
    places = list(judges)
    rng.shuffle(places)
    cycle = list(systems)
    rng.shuffle(cycle)
    n_systems = len(cycle)
    base, extra = divmod(k * len(tasks) * n_systems, len(places))
    loads = [base + (place < extra) for place in range(len(places))]
    offsets = _rotation_offsets(loads, n_systems)

    # Each system's cells, judge after judge, take that system's shuffled tasks in turn. The
    # cells number K × tasks, so every task is dealt exactly K times, and one judge's cells are
    # consecutive and at most as many as the tasks, so they never repeat a task.
    cells: list[list[tuple[int, int]]] = [[] for _ in cycle]
    for place, (load, offset) in enumerate(zip(loads, offsets, strict=True)):
        for position in range(load):
            cells[(position + offset) % n_systems].append((place, position))
    queues: list[list[TaskId]] = [[tasks[0]] * load for load in loads]
    for system_cells in cells:
        dealt = list(tasks)
        rng.shuffle(dealt)
        for number, (place, position) in enumerate(system_cells):
            queues[place][position] = dealt[number % len(dealt)]
    for queue, offset in zip(queues, offsets, strict=True):
        _space_out_tasks(queue, offset, n_systems)

    place_of = {judge: place for place, judge in enumerate(places)}
    return [
        Slot(
            judge=judge,
            task=task,
            system=cycle[(position + offsets[place_of[judge]]) % n_systems],
            position=position,
        )
        for judge in judges
        for position, task in enumerate(queues[place_of[judge]])
    ]


# Changing an open plan ---------------------------------------------------------------------


def short_pairs(
    slots: Iterable[Slot], tasks: Sequence[TaskId], systems: Sequence[SystemId], k: int
) -> list[Pair]:
    """The pairs held by fewer than ``k`` judges, in task then system order."""
    holders = Counter(slot.pair for slot in slots)
    return [(task, system) for task in tasks for system in systems if holders[task, system] < k]


@dataclass
class _Book:
    """Who holds which pair while a plan is being changed."""

    original: dict[tuple[JudgeId, Pair], Slot]
    held: dict[JudgeId, dict[Pair, Slot]] = field(default_factory=dict)
    next_position: dict[JudgeId, int] = field(default_factory=dict)

    @classmethod
    def of(cls, slots: Iterable[Slot], judges: Iterable[JudgeId]) -> _Book:
        ordered = sorted(slots, key=lambda slot: slot.position)
        book = cls(original={(slot.judge, slot.pair): slot for slot in ordered})
        for judge in judges:
            book.held[judge] = {}
            book.next_position[judge] = 0
        for slot in ordered:
            book.held.setdefault(slot.judge, {})[slot.pair] = slot
            book.next_position[slot.judge] = max(
                book.next_position.get(slot.judge, 0), slot.position + 1
            )
        return book

    def load(self, judge: JudgeId) -> int:
        return len(self.held[judge])

    def holders(self, pair: Pair) -> int:
        return sum(pair in pairs for pairs in self.held.values())

    def movable(self, judge: JudgeId) -> list[Slot]:
        """The judge's pending slots, the ones they would reach last first."""
        pending = [slot for slot in self.held[judge].values() if slot.status == SlotStatus.PENDING]
        return sorted(pending, key=lambda slot: -slot.position)

    def give(self, pair: Pair, judge: JudgeId) -> None:
        kept = self.original.get((judge, pair))
        if kept is None:
            kept = Slot(judge, pair[0], pair[1], self.next_position[judge])
            self.next_position[judge] += 1
        self.held[judge][pair] = kept

    def take(self, pair: Pair, judge: JudgeId) -> None:
        del self.held[judge][pair]

    def change(self, flagged: list[Pair]) -> Replan:
        now = {
            (slot.judge, slot.pair): slot for pairs in self.held.values() for slot in pairs.values()
        }
        return Replan(
            added=[slot for key, slot in now.items() if key not in self.original],
            removed=[slot for key, slot in self.original.items() if key not in now],
            flagged=flagged,
        )


def _improving_path(
    book: _Book, judges: Sequence[JudgeId]
) -> list[tuple[JudgeId, Pair, JudgeId]] | None:
    """Moves that take one pair from a busiest judge to one with two or more fewer.

    Breadth-first over "A can hand a pending pair to B, who does not hold it": every judge on
    the path gives one pair and receives one, except the first, who loses one, and the last,
    who gains one, so loads get closer without breaking any guarantee.
    """
    loads = {judge: book.load(judge) for judge in judges}
    highest = max(loads.values())
    came_from: dict[JudgeId, tuple[JudgeId, Pair] | None] = {
        judge: None for judge in judges if loads[judge] == highest
    }
    frontier = deque(came_from)
    while frontier:
        giver = frontier.popleft()
        for slot in book.movable(giver):
            for taker in judges:
                if taker in came_from or slot.pair in book.held[taker]:
                    continue
                came_from[taker] = (giver, slot.pair)
                if loads[taker] <= highest - 2:
                    path: list[tuple[JudgeId, Pair, JudgeId]] = []
                    step: JudgeId = taker
                    while (link := came_from[step]) is not None:
                        path.append((link[0], link[1], step))
                        step = link[0]
                    return path
                frontier.append(taker)
    return None


def _rebalance(
    book: _Book,
    judges: Sequence[JudgeId],
    tasks: Sequence[TaskId],
    systems: Sequence[SystemId],
    k: int,
    seed: int,
) -> Replan:
    rng = random.Random(seed)
    tie_break = list(judges)
    rng.shuffle(tie_break)
    rank = {judge: place for place, judge in enumerate(tie_break)}
    for pair in ((task, system) for task in tasks for system in systems):
        missing = k - book.holders(pair)
        eligible = [judge for judge in judges if pair not in book.held[judge]]
        for judge in sorted(eligible, key=lambda j: (book.load(j), rank[j]))[: max(missing, 0)]:
            book.give(pair, judge)
    if judges:
        while max(book.load(j) for j in judges) - min(book.load(j) for j in judges) > 1:
            path = _improving_path(book, tie_break)
            if path is None:
                break
            for giver, pair, taker in path:
                book.take(pair, giver)
                book.give(pair, taker)
    flagged = [pair for pair in ((t, s) for t in tasks for s in systems) if book.holders(pair) < k]
    return book.change(flagged)


def replan_without(
    slots: Sequence[Slot],
    leaving: JudgeId,
    remaining: Sequence[JudgeId],
    *,
    tasks: Sequence[TaskId],
    systems: Sequence[SystemId],
    k: int,
    seed: int,
) -> Replan:
    """Hand the leaving judge's pending pairs to the remaining judges.

    The leaving judge keeps their done and started slots, which still count towards K. Each
    pending pair goes to the least-loaded remaining judge who does not hold it; loads are then
    evened out by passing pending pairs along. Pairs that end up short of ``k`` judges, because
    every remaining judge already holds them, are flagged. The same arguments always give the
    same change.
    """
    if leaving in remaining:
        raise PlanError(f"judge {leaving!r} cannot both leave and remain")
    _check_distinct(remaining, "judge")
    book = _Book.of(slots, remaining)
    for slot in book.movable(leaving) if leaving in book.held else []:
        book.take(slot.pair, leaving)
    return _rebalance(book, remaining, tasks, systems, k, seed)


def add_judges(
    slots: Sequence[Slot],
    new_judges: Sequence[JudgeId],
    judges: Sequence[JudgeId],
    *,
    tasks: Sequence[TaskId],
    systems: Sequence[SystemId],
    k: int,
    seed: int,
) -> Replan:
    """Bring ``new_judges`` into a campaign whose current judges are ``judges``.

    Pairs short of ``k`` judges go to the least-loaded judges who can take them, usually the
    new ones; then pending work moves from the busiest judges, the pairs they would reach last,
    until the loads differ by at most one or only finished and started work is left to move.
    """
    joined = [*judges, *new_judges]
    _check_distinct(joined, "judge")
    return _rebalance(_Book.of(slots, joined), joined, tasks, systems, k, seed)


# Checking a plan ---------------------------------------------------------------------------


def check_plan(
    slots: Sequence[Slot],
    tasks: Sequence[TaskId],
    systems: Sequence[SystemId],
    judges: Sequence[JudgeId],
    k: int,
) -> list[str]:
    """Every broken guarantee of the plan, as a sentence; an empty list when all hold.

    ``judges`` are the campaign's current judges. Slots of judges who left may remain as long
    as they are done or started; they count towards K but not towards the balance of loads.
    """
    problems: list[str] = []
    known_tasks, known_systems = set(tasks), set(systems)
    for slot in slots:
        if slot.task not in known_tasks:
            problems.append(
                f"judge {slot.judge} holds task {slot.task}, which is not in the campaign"
            )
        if slot.system not in known_systems:
            problems.append(
                f"judge {slot.judge} holds system {slot.system}, which is not in the campaign"
            )
    for (judge, (task, system)), count in Counter((s.judge, s.pair) for s in slots).items():
        if count > 1:
            problems.append(f"judge {judge} holds task {task} on system {system} {count} times")
    for (judge, position), count in Counter((s.judge, s.position) for s in slots).items():
        if count > 1:
            problems.append(f"judge {judge} has {count} slots at position {position}")
    holders = Counter(slot.pair for slot in {(s.judge, s.pair): s for s in slots}.values())
    for task in tasks:
        for system in systems:
            count = holders[task, system]
            if count != k:
                problems.append(f"task {task} on system {system} has {count} judge(s), not {k}")
    current = set(judges)
    pending_elsewhere = Counter(
        slot.judge
        for slot in slots
        if slot.judge not in current and slot.status == SlotStatus.PENDING
    )
    for judge, count in pending_elsewhere.items():
        problems.append(f"judge {judge} is not in the campaign but holds {count} pending slot(s)")
    if judges:
        loads = Counter(slot.judge for slot in slots if slot.judge in current)
        lightest = min(judges, key=lambda judge: loads[judge])
        busiest = max(judges, key=lambda judge: loads[judge])
        if loads[busiest] - loads[lightest] > 1:
            problems.append(
                f"judge {busiest} holds {loads[busiest]} pairs and judge {lightest} "
                f"{loads[lightest]}; loads must differ by at most one"
            )
    return problems
