"""``manage.py agreement FILE.csv``: human–LLM agreement from a long CSV, without the database."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalsite.agreement.alt_test import DEFAULT_EPSILON, AltTestResult
from evalsite.agreement.common import DEFAULT_RESAMPLES, DEFAULT_SEED, LEVELS, InputError, Interval
from evalsite.agreement.engine import agreement_blocks, report_json
from evalsite.agreement.long_csv import read_long_csv
from evalsite.agreement.multiplicity import Family, family
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
        "alpha, LLM vs each human",
        lambda b: b.alpha.llm_vs_humans,
        lambda b: b.alpha_ci.llm_vs_humans,
    ),
    (
        "alpha, human pairs",
        lambda b: b.alpha.humans_pairwise,
        lambda b: b.alpha_ci.humans_pairwise,
    ),
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
    ("Spearman rho", lambda b: b.spearman.value, lambda b: b.spearman.ci),
    ("Kendall tau-b", lambda b: b.kendall.value, lambda b: b.kendall.ci),
    ("MAE", lambda b: b.mae, lambda b: b.mae_ci),
    ("exact agreement, pairs", lambda b: b.exact_agreement, lambda b: b.exact_agreement_ci),
    (
        "exact agreement, per item",
        lambda b: b.exact_agreement_per_item,
        lambda b: b.exact_agreement_per_item_ci,
    ),
    ("within one step", lambda b: b.within_one, lambda b: b.within_one_ci),
)
# The p-value printed after each correlation's row.
P_VALUES: dict[str, Callable[[AgreementBlock], float | None]] = {
    "Pearson r": lambda b: b.pearson.p,
    "Spearman rho": lambda b: b.spearman.p,
    "Kendall tau-b": lambda b: b.kendall.p,
}
# The chance levels printed under an agreement rate: (uniform on the scale, from the marginals).
CHANCE: dict[str, Callable[[AgreementBlock], tuple[float | None, float | None]]] = {
    "exact agreement, pairs": lambda b: (b.chance.exact_uniform, b.chance.exact_marginals),
    "within one step": lambda b: (b.chance.within_one_uniform, b.chance.within_one_marginals),
}
# p-values below this print as "p < 0.001" rather than a misleading 0.000.
SMALLEST_P_SHOWN = 0.001


def joined_scale(argv: list[str]) -> list[str]:
    """``--scale -2:2`` as ``--scale=-2:2``, which argparse accepts though the value starts with -.

    argparse takes a word starting with "-" for an option unless it reads as a negative number,
    and "-2:2" does not.
    """
    joined: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--scale":
            value = next(words, None)
            joined.append(word if value is None else f"--scale={value}")
        else:
            joined.append(word)
    return joined


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


def p_text(value: float) -> str:
    """``p < 0.001`` for a tiny p-value, ``p = 0.042`` otherwise."""
    return f"p < {SMALLEST_P_SHOWN:g}" if value < SMALLEST_P_SHOWN else f"p = {value:.3f}"


def _alt_test_lines(alt: AltTestResult | None) -> list[str]:
    if alt is None:
        return ["  alt-test                      n/a  (see the notes)"]
    lines = [
        f"  alt-test (epsilon {alt.epsilon:g}, {alt.scoring}): "
        f"{'passed' if alt.passed else 'failed'}, winning rate {alt.winning_rate:.3f}, "
        f"advantage probability {alt.advantage_probability:.3f}"
    ]
    for human in alt.humans:
        outcome = "LLM wins" if human.rejected else "LLM does not win"
        lines.append(
            f"    vs {human.rater}: {human.n_items} items, {p_text(human.p_value)}, adjusted "
            f"{p_text(human.p_adjusted)}, advantage {human.advantage:.3f}, {outcome}"
        )
    lines.extend(
        f"    {human.rater} not tested: {human.n_items} items, fewer than {alt.min_items}"
        for human in alt.untested
    )
    return lines


def _verdict_text(block: AgreementBlock) -> str:
    """The one rule's sentence: the alt-test's outcome alone is not the verdict."""
    if block.verdict is not None:
        return str(block.verdict.sentence)
    return f"none: {block.verdict_withheld or 'no LLM'}"


def _whole_file_lines(blocks: dict[str, AgreementBlock]) -> list[str]:
    """The verdict over the whole file, as the JSON's top-level ``verdict`` gives it."""
    report = report_json(blocks)
    if report["verdict"] is not None:
        return [f"whole file: {report['verdict']['sentence']}"]
    if report["verdict_withheld"] is not None:
        return [f"whole file: no verdict: {report['verdict_withheld']}"]
    return []


def _table_block(title: str, block: AgreementBlock) -> list[str]:
    lines = [
        title,
        f"  items: {block.n_items}   raters: {', '.join(block.raters)}   "
        f"LLM: {block.llm or 'none'}   level: {block.level}",
    ]
    if block.llm is not None:
        lines.extend(_alt_test_lines(block.alt_test))
        lines.append(f"  verdict: {_verdict_text(block)}")
    for label, value_of, ci_of in TABLE_ROWS:
        value = _number(value_of(block))
        interval = ci_of(block) if ci_of else None
        shown = f"[{_number(interval[0])}, {_number(interval[1])}]" if interval else ""
        p_value = P_VALUES[label](block) if label in P_VALUES else None
        if p_value is not None:
            shown = f"{shown}  {p_text(p_value)}".strip()
        lines.append(f"  {label:<26}{value:>9}  {shown}".rstrip())
        if label in CHANCE and value_of(block) is not None:
            uniform, marginals = CHANCE[label](block)
            lines.append(
                f"    chance: {_number(uniform)} uniform on {block.chance.scale_points or 'n/a'} "
                f"points, {_number(marginals)} from the observed answers"
            )
    lines.extend(f"  note: {note}" for note in block.notes)
    return lines


def _family_line(name: str, column: str, found: Family) -> str:
    """How many intervals a breakdown prints, and how many of its r survive the correction."""
    return (
        f"breakdown of {name} by {column}: {len(found.survives)} groups, {found.intervals} 95% "
        "intervals (with so many, some exclude 0 by chance alone); Pearson r survives a "
        f"Benjamini-Hochberg correction at 5% in {found.surviving} of the {found.tested} groups "
        "with a p-value"
    )


def format_table(blocks: dict[str, AgreementBlock]) -> str:
    """The blocks as plain text: one section per dimension and per breakdown group."""
    lines: list[str] = []
    for name, block in blocks.items():
        lines.extend(_table_block(f"dimension: {name}", block))
        for column, groups in (block.by or {}).items():
            found = family(list(groups.values()))
            lines.append("")
            lines.append(_family_line(name, column, found))
            for (value, group), survives in zip(groups.items(), found.survives, strict=True):
                lines.append("")
                lines.extend(_table_block(f"dimension: {name} / {column} = {value}", group))
                if survives is not None:
                    mark = "survives" if survives else "does not survive"
                    lines.append(f"  Pearson r {mark} Benjamini-Hochberg at 5% across {column}")
        lines.append("")
    lines.extend(_whole_file_lines(blocks))
    return "\n".join(lines).rstrip() + "\n"


class Command(BaseCommand):
    help = (
        "Agreement among human raters and between them and an LLM evaluator, from a long CSV "
        "with columns item,rater,score (optionally dimension and metadata columns). Prints "
        "the alternative annotator test, Krippendorff's alpha, correlations, MAE and agreement "
        "rates with bootstrap CIs and their chance levels."
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
            help="the scale's range, such as 1:5 or -2:2; its integer points are the ordinal "
            "value domain",
        )
        parser.add_argument("--llm", metavar="RATER", help="the rater who is the LLM evaluator")
        parser.add_argument(
            "--epsilon",
            type=float,
            default=DEFAULT_EPSILON,
            metavar="E",
            help="the alt-test's allowance: 0.2 for expert annotators, 0.15 for skilled ones, "
            f"0.1 for crowd workers (default: {DEFAULT_EPSILON:g})",
        )
        parser.add_argument(
            "--alt-scoring",
            choices=("accuracy", "neg_rmse"),
            help="how the alt-test aligns a score with the other humans' (default: accuracy at "
            "the nominal level, neg_rmse otherwise)",
        )
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

    def run_from_argv(self, argv: list[str]) -> None:
        super().run_from_argv(joined_scale(argv))

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        scale = parse_scale(options["scale"]) if options["scale"] else None
        if options["bootstrap"] < 0:
            raise CommandError("--bootstrap cannot be negative (0 turns CIs off)")
        if options["seed"] < 0:
            raise CommandError("--seed must be zero or positive")
        if not 0 <= options["epsilon"] < 1:
            raise CommandError("--epsilon must be at least 0 and below 1, such as 0.15")
        try:
            frame = read_long_csv(path, labels=options["level"] == "nominal")
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
                epsilon=options["epsilon"],
                alt_scoring=options["alt_scoring"],
            )
        except InputError as error:
            raise CommandError(f"{path}: {error}") from error
        if options["format"] == "table":
            self.stdout.write(format_table(blocks), ending="")
        else:
            report = report_json(blocks)
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False))
