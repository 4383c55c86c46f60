"""The SMP2018 measures of live judging and the leaderboard built from them.

Plain functions over plain rows, one row per judged dialogue (no Django); the views turn
sessions and ratings into `SessionRow`s. docs/leaderboard.md explains every number.

- C, the completion rate, is SMP2018's: the mean over judges of each judge's completion rate
  (the share of that judge's sessions with the system that were completed). The rate pooled
  over sessions is given beside it; the two agree when every judge held as many sessions.
- Turns are the utterances of both sides. The average charges each uncompleted session its
  task's turn penalty instead of the turns it took, so giving up early never pays; like C it
  is the mean over judges of each judge's average. With C = 0 it is the mean penalty, the
  most a system can average (SMP2018's 34.29), which `max_average_turns` gives.
- A completed session may not take more turns than its task's penalty, or a success would
  cost more than a failure: such a row is refused.
- Systems rank by C, then by average turns, fewer first. Equal on both, they share a rank
  (1, 1, 3).
- Bootstrap CIs resample tasks, since the sessions of one task share its difficulty.

Agreement among judges, and between simulated users and judges, is in
`liveeval.judge_agreement`, over the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from evalsite.agreement.bootstrap import bootstrap_distributions, percentile_interval
from evalsite.agreement.common import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MIN_ITEMS_FOR_CI,
    Level,
    StatisticUndefined,
)
from evalsite.agreement.phrases import Phrase, gettext_noop

SystemId: TypeAlias = int | str
TaskId: TypeAlias = int | str
JudgeId: TypeAlias = int | str
Source = Literal["human", "simulated"]
SOURCES: tuple[Source, ...] = ("human", "simulated")


@dataclass(frozen=True)
class Measure:
    """A judge's rating of a dialogue: the row field, its SMP symbol, level and scale."""

    name: str
    symbol: str
    label: str
    level: Level
    scale: tuple[int, ...]


MEASURES = (
    Measure("completed", "C", Phrase(gettext_noop("task completion")), "nominal", (0, 1)),
    Measure(
        "satisfaction", "Sa", Phrase(gettext_noop("satisfaction")), "ordinal", (-2, -1, 0, 1, 2)
    ),
    Measure("fluency", "F", Phrase(gettext_noop("fluency")), "ordinal", (-1, 0, 1)),
    Measure("guidance", "G", Phrase(gettext_noop("guidance")), "nominal", (0, 1)),
)


@dataclass(frozen=True)
class SessionRow:
    """One judged dialogue: who held it, with which system on which task, and its ratings.

    ``turns`` counts the utterances of both sides and ``penalty`` is the task's turn penalty.
    A rating left out (None) is not applicable, such as G when nothing asked for lay outside
    the data. ``auto_completed`` is the verdict checked from the bookings, None when the task
    has no machine-checkable goal.
    """

    system: SystemId
    task: TaskId
    judge: JudgeId
    completed: bool
    turns: int
    penalty: int
    satisfaction: int | None = None
    fluency: int | None = None
    guidance: int | None = None
    auto_completed: bool | None = None
    source: Source = "human"

    def __post_init__(self) -> None:
        where = f"judge {self.judge}, task {self.task}, system {self.system}"
        if self.completed not in (0, 1):
            raise ValueError(f"{where}: completed must be true or false, not {self.completed!r}")
        if self.turns < 0:
            raise ValueError(f"{where}: turns cannot be negative ({self.turns})")
        if self.penalty < 1:
            raise ValueError(f"{where}: the turn penalty must be at least 1 ({self.penalty})")
        if self.completed and self.turns > self.penalty:
            raise ValueError(
                f"{where}: completed in {self.turns} turns, more than the task's turn penalty "
                f"of {self.penalty}, so the success would cost more than a failure; raise the "
                "task's penalty or cap the dialogue's turns at it"
            )
        for measure in MEASURES[1:]:
            value = getattr(self, measure.name)
            if value is not None and value not in measure.scale:
                raise ValueError(
                    f"{where}: {measure.name} {value!r} is outside "
                    f"{measure.scale[0]}..{measure.scale[-1]}"
                )
        if self.source not in SOURCES:
            raise ValueError(f"{where}: source must be human or simulated, not {self.source!r}")

    @property
    def charged_turns(self) -> int:
        """The turns this dialogue counts for in the average: its penalty unless completed."""
        return self.turns if self.completed else self.penalty

    @classmethod
    def from_mapping(cls, row: Mapping[str, Any]) -> SessionRow:
        """A row from a dict with the field names as keys; other keys are ignored."""
        names = {field.name for field in fields(cls)}
        required = ("system", "task", "judge", "completed", "turns", "penalty")
        for name in required:
            if name not in row:
                raise ValueError(f"a session row needs '{name}' (it has {', '.join(row)})")
        return cls(**{name: value for name, value in row.items() if name in names})


RowInput: TypeAlias = SessionRow | Mapping[str, Any]


def as_rows(rows: Iterable[RowInput], source: Source | None) -> list[SessionRow]:
    converted = [
        row if isinstance(row, SessionRow) else SessionRow.from_mapping(row) for row in rows
    ]
    if source is None:
        return converted
    if source not in SOURCES:
        raise ValueError(f"source must be human, simulated or None, not {source!r}")
    return [row for row in converted if row.source == source]


def id_order(value: int | str) -> tuple[int, int, str]:
    """Sorts ids of either kind the same way in every process (unlike hashing)."""
    return (1, 0, value) if isinstance(value, str) else (0, value, "")


# Leaderboard -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemResult:
    """One line of the leaderboard. ``notes`` says, per field name, why that field is None."""

    system: SystemId
    rank: int
    n_sessions: int
    n_tasks: int
    n_judges: int
    completion_rate: float
    completion_ci: tuple[float, float] | None
    avg_turns: float
    avg_turns_ci: tuple[float, float] | None
    pooled_completion_rate: float
    pooled_avg_turns: float
    mean_satisfaction: float | None
    mean_fluency: float | None
    mean_guidance: float | None
    auto_completion_rate: float | None
    auto_agreement: float | None
    notes: Mapping[str, str]


def _mean_rating(
    sessions: list[SessionRow], measure: Measure, field_name: str, notes: dict[str, str]
) -> float | None:
    values = [getattr(row, measure.name) for row in sessions]
    given = [value for value in values if value is not None]
    if not given:
        notes[field_name] = Phrase(
            gettext_noop("no session of this system has a %(measure)s rating"),
            measure=measure.label,
        )
        return None
    return sum(given) / len(given)


class MeanOverJudges:
    """The mean over judges of each judge's ratio of per-task sums, on resamples of tasks.

    ``numerator`` and ``count`` are judges × tasks. A resample weights each task's sums by how
    often it was drawn, which keeps a task's sessions together; a judge none of whose tasks
    was drawn drops out of that resample's mean. This is SMP2018's C (numerator: completed
    sessions) and average turns (numerator: charged turns).
    """

    def __init__(self, numerator: npt.NDArray[np.float64], count: npt.NDArray[np.float64]) -> None:
        if numerator.shape != count.shape or numerator.ndim != 2:
            raise ValueError("numerator and count need one row per judge and one column per task")
        self._numerator = numerator
        self._count = count

    @property
    def n_items(self) -> int:
        return int(self._count.shape[1])

    @property
    def n_usable(self) -> int:
        return int((self._count.sum(axis=0) > 0).sum())

    def estimate(self) -> Fraction:
        """The exact value, so that equal figures tie exactly in the ranking."""
        rates = [
            Fraction(int(numerator.sum()), int(count.sum()))
            for numerator, count in zip(self._numerator, self._count, strict=True)
            if count.sum() > 0
        ]
        return sum(rates, Fraction(0)) / len(rates)

    def __call__(self, weights: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        numerator = weights @ self._numerator.T
        count = weights @ self._count.T
        present = count > 0
        rates = np.divide(numerator, count, out=np.zeros_like(numerator), where=present)
        judges = present.sum(axis=1)
        safe = np.where(judges > 0, judges, 1)
        return np.where(judges > 0, rates.sum(axis=1) / safe, np.nan)


@dataclass(frozen=True)
class _SystemSessions:
    """One system's sessions, and their sums per judge and task, which the bootstrap resamples."""

    sessions: list[SessionRow]
    completion: MeanOverJudges
    turns: MeanOverJudges
    n_judges: int

    @classmethod
    def of(cls, sessions: list[SessionRow], task_index: dict[TaskId, int]) -> _SystemSessions:
        judges = sorted({row.judge for row in sessions}, key=id_order)
        judge_index = {judge: index for index, judge in enumerate(judges)}
        count, completed, charged = np.zeros((3, len(judges), len(task_index)))
        for row in sessions:
            cell = (judge_index[row.judge], task_index[row.task])
            count[cell] += 1
            completed[cell] += row.completed
            charged[cell] += row.charged_turns
        return cls(
            sessions, MeanOverJudges(completed, count), MeanOverJudges(charged, count), len(judges)
        )

    @property
    def n_tasks(self) -> int:
        return self.completion.n_usable

    def ranking_key(self) -> tuple[Fraction, Fraction]:
        """Higher C first, then fewer average turns; exact, so equal figures tie exactly."""
        return (-self.completion.estimate(), self.turns.estimate())


def _intervals(
    systems: dict[SystemId, _SystemSessions], *, resamples: int, seed: int, confidence: float
) -> tuple[dict[tuple[SystemId, str], tuple[float, float]], dict[tuple[SystemId, str], str]]:
    """CIs of C and average turns per system, all systems on the same resamples of tasks."""
    reasons: dict[tuple[SystemId, str], str] = {}
    ready: dict[str, MeanOverJudges] = {}
    keys: dict[str, tuple[SystemId, str]] = {}
    for number, (system, tally) in enumerate(systems.items()):
        statistics = {"completion_ci": tally.completion, "avg_turns_ci": tally.turns}
        for field_name, statistic in statistics.items():
            if resamples == 0:
                reasons[system, field_name] = "bootstrap resampling was turned off (0 resamples)"
            elif tally.n_tasks < MIN_ITEMS_FOR_CI:
                reasons[system, field_name] = (
                    f"the system was judged on {tally.n_tasks} task(s); a bootstrap CI over "
                    f"tasks needs at least {MIN_ITEMS_FOR_CI}"
                )
            else:
                ready[f"{number}.{field_name}"] = statistic
                keys[f"{number}.{field_name}"] = (system, field_name)
    intervals: dict[tuple[SystemId, str], tuple[float, float]] = {}
    if not ready:
        return intervals, reasons
    for name, distribution in bootstrap_distributions(
        ready, resamples=resamples, seed=seed
    ).items():
        try:
            intervals[keys[name]] = percentile_interval(distribution, confidence=confidence)
        except StatisticUndefined as error:
            reasons[keys[name]] = f"{error}, where a resample drew none of the system's tasks"
    return intervals, reasons


def _automatic_verdicts(
    sessions: list[SessionRow], notes: dict[str, str]
) -> tuple[float | None, float | None]:
    """The share completed by the bookings' verdict, and the share where judges agree."""
    checked = [row for row in sessions if row.auto_completed is not None]
    if not checked:
        reason = Phrase(
            gettext_noop("no session of this system has a verdict checked from its bookings")
        )
        notes["auto_completion_rate"] = notes["auto_agreement"] = reason
        return None, None
    completed = sum(bool(row.auto_completed) for row in checked)
    agreeing = sum(bool(row.completed) == row.auto_completed for row in checked)
    return completed / len(checked), agreeing / len(checked)


def leaderboard(
    rows: Iterable[RowInput],
    *,
    source: Source | None = "human",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> list[SystemResult]:
    """The systems in rank order: by C, then by average turns (fewer first), both SMP2018's
    means over judges; the figures pooled over sessions come beside them.

    ``source`` keeps the rows of human judges ("human", the default), of simulated users
    ("simulated"), or all rows (None). Systems equal on both C and average turns, compared
    exactly as fractions, share the best of their ranks (1, 1, 3) and are listed by id. CIs
    resample tasks, every system on the same draws (``seed``, ``resamples``); ``resamples=0``
    turns them off.
    """
    if resamples < 0:
        raise ValueError("the number of resamples cannot be negative")
    sessions = as_rows(rows, source)
    grouped: dict[SystemId, list[SessionRow]] = {}
    for row in sessions:
        grouped.setdefault(row.system, []).append(row)
    tasks = sorted({row.task for row in sessions}, key=id_order)
    task_index = {task: index for index, task in enumerate(tasks)}
    systems = {
        system: _SystemSessions.of(grouped[system], task_index)
        for system in sorted(grouped, key=id_order)
    }
    intervals, reasons = _intervals(systems, resamples=resamples, seed=seed, confidence=confidence)

    results: list[SystemResult] = []
    ranked = sorted(systems.items(), key=lambda item: item[1].ranking_key())
    for place, (system, tally) in enumerate(ranked):
        tied = place > 0 and ranked[place - 1][1].ranking_key() == tally.ranking_key()
        group = tally.sessions
        notes = {
            field_name: reasons[system, field_name]
            for field_name in ("completion_ci", "avg_turns_ci")
            if (system, field_name) in reasons
        }
        auto_rate, auto_agreement = _automatic_verdicts(group, notes)
        results.append(
            SystemResult(
                system=system,
                rank=results[-1].rank if tied else place + 1,
                n_sessions=len(group),
                n_tasks=tally.n_tasks,
                n_judges=tally.n_judges,
                completion_rate=float(tally.completion.estimate()),
                completion_ci=intervals.get((system, "completion_ci")),
                avg_turns=float(tally.turns.estimate()),
                avg_turns_ci=intervals.get((system, "avg_turns_ci")),
                pooled_completion_rate=sum(row.completed for row in group) / len(group),
                pooled_avg_turns=sum(row.charged_turns for row in group) / len(group),
                mean_satisfaction=_mean_rating(group, MEASURES[1], "mean_satisfaction", notes),
                mean_fluency=_mean_rating(group, MEASURES[2], "mean_fluency", notes),
                mean_guidance=_mean_rating(group, MEASURES[3], "mean_guidance", notes),
                auto_completion_rate=auto_rate,
                auto_agreement=auto_agreement,
                notes=notes,
            )
        )
    return results


def max_average_turns(rows: Iterable[RowInput], *, source: Source | None = "human") -> float | None:
    """The most average turns a system can be charged: the mean of the tasks' penalties, each
    task once (SMP2018's 34.29). None without sessions."""
    penalties = {row.task: row.penalty for row in as_rows(rows, source)}
    if not penalties:
        return None
    return sum(penalties.values()) / len(penalties)
