"""The tasks the ``fidelity_measures`` command measures from a file, and their JSON.

`measure_file` reads one task's responses (`evalsite.fidelity.responses`) and measures each
responder group; `TaskResult.as_json` is what the command prints.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, get_args

import numpy as np

from evalsite.fidelity.bin_pref import BinPrefMeasures, bin_pref, by_frequency
from evalsite.fidelity.common import DEFAULT_RESAMPLES, DEFAULT_SEED
from evalsite.fidelity.feedback import ComparisonMeasures, FeedbackMeasures, comparison, feedback
from evalsite.fidelity.items_talk import items_talk
from evalsite.fidelity.rec_request import rec_request
from evalsite.fidelity.responses import (
    read_bin_pref,
    read_feedback,
    read_items_talk,
    read_rec_request,
)

# Embeddings of texts, one vector per text, in order.
Embedder = Callable[[Sequence[str]], list[list[float]]]
Task = Literal["items_talk", "bin_pref", "feedback", "rec_request"]
TASKS: tuple[Task, ...] = get_args(Task)


class GroupMeasures(Protocol):
    def as_json(self) -> dict[str, object]: ...


@dataclass(frozen=True)
class BinPrefGroup:
    """A group's binary preference, and the same within each frequency bucket if known."""

    overall: BinPrefMeasures
    by_frequency: dict[str, BinPrefMeasures] | None

    def as_json(self) -> dict[str, object]:
        shown = self.overall.as_json()
        if self.by_frequency is not None:
            shown["by_frequency"] = {
                bucket: measures.as_json() for bucket, measures in self.by_frequency.items()
            }
        return shown


@dataclass(frozen=True)
class FeedbackGroup:
    """A group's accept/reject coherence and comparison shares; either may be absent."""

    accept_reject: FeedbackMeasures | None
    comparison: ComparisonMeasures | None

    def as_json(self) -> dict[str, object]:
        shown = self.accept_reject.as_json() if self.accept_reject else {}
        if self.comparison is not None:
            shown["comparison"] = self.comparison.as_json()
        return shown


@dataclass(frozen=True)
class TaskResult:
    task: Task
    groups: dict[str, GroupMeasures]

    def as_json(self) -> dict[str, object]:
        return {"groups": {name: group.as_json() for name, group in self.groups.items()}}


def measure_file(
    path: Path,
    task: Task,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    embed: Embedder | None = None,
) -> TaskResult:
    """Every group's measures of one task's response file. Raises `InputError`.

    For requests without embeddings in the file, ``embed`` (if given) embeds their texts.
    """
    groups: dict[str, GroupMeasures] = {}
    if task == "items_talk":
        for name, answers in read_items_talk(path).items():
            groups[name] = items_talk(answers, resamples=resamples, seed=seed)
    elif task == "bin_pref":
        read = read_bin_pref(path)
        for name, yes_no in read.groups.items():
            split = None
            if read.n_ratings is not None:
                split = by_frequency(yes_no, read.n_ratings, resamples=resamples, seed=seed)
            groups[name] = BinPrefGroup(bin_pref(yes_no, resamples=resamples, seed=seed), split)
    elif task == "feedback":
        judged = read_feedback(path)
        for name in dict.fromkeys([*judged.accept_reject, *judged.comparisons]):
            accept_reject, compared = judged.accept_reject.get(name), judged.comparisons.get(name)
            groups[name] = FeedbackGroup(
                feedback(accept_reject, resamples=resamples, seed=seed) if accept_reject else None,
                comparison(compared, resamples=resamples, seed=seed) if compared else None,
            )
    else:
        requests = read_rec_request(path)
        for name, texts in requests.groups.items():
            vectors = None if requests.embeddings is None else requests.embeddings[name]
            if vectors is None and embed is not None:
                vectors = np.array(embed([text.text for text in texts]), dtype=np.float64)
            groups[name] = rec_request(texts, vectors, resamples=resamples, seed=seed)
    return TaskResult(task, groups)
