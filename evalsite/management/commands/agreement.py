"""``manage.py agreement FILE.csv``: human–LLM agreement from a long CSV, without the database."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalsite.agreement.common import DEFAULT_RESAMPLES, DEFAULT_SEED, LEVELS, InputError, Interval
from evalsite.agreement.engine import agreement_blocks
from evalsite.agreement.long_csv import read_long_csv
from evalsite.agreement.results import AgreementBlock

# Rows of the table format: (label, the value, its CI or None).
TABLE_ROWS: tuple[
    tuple[
        str,
        Callable[[AgreementBlock], float | None],
        Callable[[AgreementBlock], Interval | None] | None,
    ],
    ...,
] = (
    ("alpha, humans", lambda b: b.alpha.humans, lambda b: b.alpha_ci.humans),
    (
        "alpha, humans + LLM",
        lambda b: b.alpha.humans_plus_llm,
        lambda b: b.alpha_ci.humans_plus_llm,
    ),
    (
        "alpha, LLM vs human mean",
        lambda b: b.alpha.llm_vs_human_mean,
        lambda b: b.alpha_ci.llm_vs_human_mean,
    ),
    ("Pearson r", lambda b: b.pearson.value, lambda b: b.pearson.ci),
    ("Pearson p", lambda b: b.pearson.p, None),
    ("Spearman rho", lambda b: b.spearman.value, lambda b: b.spearman.ci),
    ("Spearman p", lambda b: b.spearman.p, None),
    ("Kendall tau-b", lambda b: b.kendall.value, lambda b: b.kendall.ci),
    ("Kendall p", lambda b: b.kendall.p, None),
    ("MAE", lambda b: b.mae, lambda b: b.mae_ci),
    ("exact agreement", lambda b: b.exact_agreement, lambda b: b.exact_agreement_ci),
    ("within one point", lambda b: b.within_one, lambda b: b.within_one_ci),
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


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _table_block(title: str, block: AgreementBlock) -> list[str]:
    lines = [
        title,
        f"  items: {block.n_items}   raters: {', '.join(block.raters)}   "
        f"LLM: {block.llm or 'none'}   level: {block.level}",
    ]
    for label, value_of, ci_of in TABLE_ROWS:
        value = _number(value_of(block))
        interval = ci_of(block) if ci_of else None
        shown = f"[{_number(interval[0])}, {_number(interval[1])}]" if interval else ""
        lines.append(f"  {label:<26}{value:>9}  {shown}".rstrip())
    lines.extend(f"  note: {note}" for note in block.notes)
    return lines


def format_table(blocks: dict[str, AgreementBlock]) -> str:
    """The blocks as plain text: one section per dimension and per breakdown group."""
    lines: list[str] = []
    for name, block in blocks.items():
        lines.extend(_table_block(f"dimension: {name}", block))
        for column, groups in (block.by or {}).items():
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
            blocks = agreement_blocks(
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
            self.stdout.write(format_table(blocks), ending="")
        else:
            report = {"dimensions": {name: block.as_json() for name, block in blocks.items()}}
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False))
