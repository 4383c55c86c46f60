"""``manage.py agreement FILE.csv``: human–LLM agreement from a long CSV, without the database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalsite.agreement.common import DEFAULT_RESAMPLES, DEFAULT_SEED, LEVELS, InputError
from evalsite.agreement.engine import human_llm_agreement
from evalsite.agreement.long_csv import read_long_csv

# Rows of the table format: (label, path into a block, path to its CI or None).
TABLE_ROWS: tuple[tuple[str, tuple[str, ...], tuple[str, ...] | None], ...] = (
    ("alpha, humans", ("alpha", "humans"), ("alpha_ci", "humans")),
    ("alpha, humans + LLM", ("alpha", "humans_plus_llm"), ("alpha_ci", "humans_plus_llm")),
    ("alpha, LLM vs human mean", ("alpha", "llm_vs_human_mean"), ("alpha_ci", "llm_vs_human_mean")),
    ("Pearson r", ("pearson", "r"), ("pearson", "ci")),
    ("Pearson p", ("pearson", "p"), None),
    ("Spearman rho", ("spearman", "rho"), ("spearman", "ci")),
    ("Spearman p", ("spearman", "p"), None),
    ("Kendall tau-b", ("kendall", "tau"), ("kendall", "ci")),
    ("Kendall p", ("kendall", "p"), None),
    ("MAE", ("mae",), ("mae_ci",)),
    ("exact agreement", ("exact_agreement",), ("exact_agreement_ci",)),
    ("within one point", ("within_one",), ("within_one_ci",)),
)


def parse_scale(text: str) -> tuple[float, float]:
    low, separator, high = text.partition(":")
    try:
        scale = (float(low), float(high))
    except ValueError:
        scale = None
    if not separator or scale is None or not scale[0] < scale[1]:
        raise CommandError(f"--scale {text}: give MIN:MAX with MIN below MAX, such as 1:5")
    return scale


def _lookup(block: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = block
    for key in path:
        value = value[key]
    return value


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _table_block(title: str, block: dict[str, Any]) -> list[str]:
    lines = [
        title,
        f"  items: {block['n_items']}   raters: {', '.join(block['raters'])}   "
        f"LLM: {block['llm'] or 'none'}   level: {block['level']}",
    ]
    for label, path, ci_path in TABLE_ROWS:
        value = _number(_lookup(block, path))
        interval = _lookup(block, ci_path) if ci_path else None
        shown = f"[{_number(interval[0])}, {_number(interval[1])}]" if interval else ""
        lines.append(f"  {label:<26}{value:>9}  {shown}".rstrip())
    lines.extend(f"  note: {note}" for note in block["notes"])
    return lines


def format_table(report: dict[str, Any]) -> str:
    """The report as plain text: one section per dimension and per breakdown group."""
    lines: list[str] = []
    for name, block in report["dimensions"].items():
        lines.extend(_table_block(f"dimension: {name}", block))
        for column, groups in block.get("by", {}).items():
            for value, group in groups.items():
                lines.append("")
                lines.extend(_table_block(f"dimension: {name} / {column} = {value}", group))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


class Command(BaseCommand):
    help = (
        "Agreement among human raters and between them and an LLM evaluator, from a long CSV "
        "with columns item,rater,score (optionally dimension and metadata columns). Prints "
        "Krippendorff's alpha, correlations, MAE and agreement rates with bootstrap CIs."
    )
    # It reads a file and prints numbers: neither the database nor the URLconf is involved.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="CSV with columns item,rater,score[,dimension,...]")
        parser.add_argument(
            "--level",
            choices=LEVELS,
            default="ordinal",
            help="level of measurement for alpha among the raters (default: ordinal)",
        )
        parser.add_argument(
            "--scale",
            metavar="MIN:MAX",
            help="the scale's range; its integer points are the ordinal value domain",
        )
        parser.add_argument("--llm", metavar="RATER", help="the rater who is the LLM evaluator")
        parser.add_argument(
            "--bootstrap",
            type=int,
            default=DEFAULT_RESAMPLES,
            metavar="N",
            help=f"bootstrap resamples for CIs; 0 turns CIs off (default: {DEFAULT_RESAMPLES})",
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=DEFAULT_SEED,
            metavar="S",
            help=f"seed of the resampling (default: {DEFAULT_SEED})",
        )
        parser.add_argument(
            "--by",
            action="append",
            default=[],
            metavar="COLUMN",
            help="also break every dimension down by this metadata column (repeatable)",
        )
        parser.add_argument("--format", choices=("json", "table"), default="json")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        scale = parse_scale(options["scale"]) if options["scale"] else None
        if options["bootstrap"] < 0:
            raise CommandError("--bootstrap cannot be negative (0 turns CIs off)")
        if options["seed"] < 0:
            raise CommandError("--seed must be zero or positive")
        try:
            frame = read_long_csv(path)
        except InputError as error:
            raise CommandError(f"{path}: {error}") from error
        llm = options["llm"]
        if llm is not None and llm not in set(frame["rater"]):
            raters = sorted(set(frame["rater"]))
            listed = ", ".join(raters[:20]) + (", ..." if len(raters) > 20 else "")
            raise CommandError(f"--llm {llm}: {path} has no rater of that name (raters: {listed})")
        try:
            report = human_llm_agreement(
                frame,
                llm=llm,
                level=options["level"],
                scale=scale,
                resamples=options["bootstrap"],
                seed=options["seed"],
                by=options["by"],
            )
        except InputError as error:
            raise CommandError(f"{path}: {error}") from error
        if options["format"] == "table":
            self.stdout.write(format_table(report), ending="")
        else:
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False))
