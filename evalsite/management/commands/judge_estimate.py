"""``manage.py judge_estimate FILE``: people's mean per group, stretched by an LLM judge.

The file is CSV with the columns ``group,item,llm,human``: the LLM's score of every item, and the
human value of the items people rated (empty for the others). See docs/estimates.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalsite.agreement.common import InputError, StatisticUndefined
from evalsite.agreement.prediction_powered import (
    DEFAULT_ALPHA,
    mean_estimates,
    needed_ratings,
    rogan_gladen,
)
from evalsite.fidelity.files import Problems, csv_rows, number_field, text_field

COLUMNS = ("group", "item", "llm", "human")


@dataclass
class GroupScores:
    """One group's scores: the rated items' (human, LLM) pairs, and the unrated items' LLM."""

    human: list[float] = field(default_factory=list)
    llm_labeled: list[float] = field(default_factory=list)
    llm_unlabeled: list[float] = field(default_factory=list)


def read_scores(path: Path) -> dict[str, GroupScores]:
    """Each group's scores, in file order. A file with any problem is refused whole: the
    `InputError` names the first problem's line and field and counts the others."""
    problems = Problems()
    groups: dict[str, GroupScores] = {}
    seen: dict[tuple[str, str], int] = {}
    for row in csv_rows(path, COLUMNS):
        group = text_field(row, "group", problems)
        item = text_field(row, "item", problems)
        llm = number_field(row, "llm", problems)
        rated = text_field(row, "human", problems, required=False)
        human = number_field(row, "human", problems) if rated else None
        if group and item:
            first = seen.setdefault((group, item), row.line)
            if first != row.line:
                problems.add(
                    row.line, "item", f"{item!r} of group {group!r} is on line {first} too"
                )
        if not group or llm is None:
            continue
        scores = groups.setdefault(group, GroupScores())
        # A human value that is not a number has been noted, and refuses the file.
        if human is None:
            scores.llm_unlabeled.append(llm)
        else:
            scores.human.append(human)
            scores.llm_labeled.append(llm)
    problems.raise_if_any()
    return groups


def _pair(interval: Sequence[float]) -> list[float]:
    return [interval[0], interval[1]]


def group_json(scores: GroupScores, alpha: float, target: float | None) -> dict[str, object]:
    """The group's estimates under the JSON names of docs/estimates.md.

    Figures that cannot be computed are null, and ``notes`` says why.
    """
    every = scores.llm_labeled + scores.llm_unlabeled
    shown: dict[str, object] = {
        "ppi_mean": None,
        "ppi_ci": None,
        "classical_mean": None,
        "classical_ci": None,
        "llm_only_mean": math.fsum(every) / len(every),
        "n_labeled": len(scores.human),
        "n_unlabeled": len(scores.llm_unlabeled),
        "lambda": None,
        "effective_labels": None,
    }
    notes: list[str] = []
    arrays = (scores.human, scores.llm_labeled, scores.llm_unlabeled)
    try:
        found = mean_estimates(*arrays, alpha=alpha)
    except StatisticUndefined as reason:
        notes.append(f"no estimate: {reason}")
    else:
        shown.update(
            ppi_mean=found.ppi_mean,
            ppi_ci=_pair(found.ppi_ci),
            classical_mean=found.classical_mean,
            classical_ci=_pair(found.classical_ci),
            **{"lambda": found.lam},
            effective_labels=found.effective_labels,
        )
        if target is not None:
            needed = needed_ratings(*arrays, half_width=target, alpha=alpha)
            shown["needed"] = {"classical": needed.classical, "ppi": needed.ppi}
    if all(value in (0.0, 1.0) for value in (*scores.human, *every)):
        try:
            corrected = rogan_gladen(*arrays, alpha=alpha)
        except StatisticUndefined as reason:
            shown["rogan_gladen"] = None
            notes.append(f"no Rogan–Gladen rate: {reason}")
        else:
            shown["rogan_gladen"] = {
                "rate": corrected.rate,
                "ci": _pair(corrected.ci),
                "sensitivity": corrected.sensitivity,
                "specificity": corrected.specificity,
                "clipped": corrected.clipped,
            }
            if corrected.clipped:
                notes.append("the Rogan–Gladen rate or its interval was clipped to [0, 1]")
    if notes:
        shown["notes"] = notes
    return shown


def _cell(value: object) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, list):
        return f"[{value[0]:.3f}, {value[1]:.3f}]"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def format_table(groups: dict[str, dict[str, object]]) -> str:
    """One block per group: each figure on its own line, then the notes."""
    lines: list[str] = []
    for name, shown in groups.items():
        lines.append(f"group: {name}")
        for key, value in shown.items():
            if key == "notes" and isinstance(value, list):
                lines.extend(f"  note: {note}" for note in value)
            elif isinstance(value, dict):
                parts = ", ".join(f"{part} {_cell(inner)}" for part, inner in value.items())
                lines.append(f"  {key:<18}{parts}")
            else:
                lines.append(f"  {key:<18}{_cell(value)}")
        lines.append("")
    return "\n".join(lines)


class Command(BaseCommand):
    help = (
        "People's mean per group from a few human ratings and an LLM judge's scores of every "
        "item: classical, LLM-only and prediction-powered (PPI++) estimates, with the human "
        "ratings a target interval needs. The CSV has columns group,item,llm,human, with human "
        "empty for items no person rated. See docs/estimates.md."
    )
    # It reads a file and prints numbers: neither the database nor the URLconf is involved.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="CSV with columns group,item,llm,human")
        parser.add_argument(
            "--alpha",
            type=float,
            default=DEFAULT_ALPHA,
            help=f"error level: the intervals cover with 1 − alpha (default: {DEFAULT_ALPHA})",
        )
        parser.add_argument("--format", choices=("json", "table"), default="json")
        parser.add_argument(
            "--target-half-width",
            type=float,
            metavar="H",
            help="also give the human ratings needed for intervals of ± H",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        alpha: float = options["alpha"]
        target: float | None = options["target_half_width"]
        if not 0 < alpha < 1:
            raise CommandError("--alpha must lie strictly between 0 and 1")
        if target is not None and not (target > 0 and math.isfinite(target)):
            raise CommandError("--target-half-width must be a positive number")
        try:
            groups = read_scores(path)
        except InputError as error:
            raise CommandError(f"{path}: {error}") from error
        report = {"groups": {name: group_json(s, alpha, target) for name, s in groups.items()}}
        if options["format"] == "table":
            self.stdout.write(format_table(report["groups"]), ending="")
        else:
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False))
