"""``manage.py intent_score --gold GOLD --pred PRED``: score predictions outside the web app."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from intent.alignment import align, gold_label_set
from intent.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, official_f_interval
from intent.files import IntentFileError, read_dataset, read_predictions
from intent.labels import SMP_LABELS
from intent.report import as_json, as_table
from intent.scoring import score


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise CommandError(f"{path}: no such file") from error
    except UnicodeDecodeError as error:
        raise CommandError(
            f"{path}: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from error
    except OSError as error:
        raise CommandError(f"{path}: {error.strerror}") from error


def _one_line(error: IntentFileError) -> str:
    more = error.total - 1
    return str(error.problems[0]) + (f" (and {more} more problems)" if more else "")


class Command(BaseCommand):
    help = (
        "Score intent predictions against gold labels: official F (2PR/(P+R) of macro precision "
        "and recall over the gold label set), macro-F1, accuracy, per-class scores, confusion."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--gold", required=True, help="released JSON or CSV id,query,label")
        parser.add_argument("--pred", required=True, help="CSV id,label or resultsList JSON")
        parser.add_argument("--format", choices=("json", "table"), default="table")
        parser.add_argument(
            "--bootstrap",
            type=int,
            default=DEFAULT_RESAMPLES,
            help="resamples of the utterances for the official F's CI (0: no CI)",
        )
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["bootstrap"] < 0:
            raise CommandError("--bootstrap must be 0 or more")
        if options["seed"] < 0:
            raise CommandError("--seed must be 0 or more")
        try:
            gold = read_dataset(_read(options["gold"]), options["gold"], None)
            labels = gold_label_set(gold, SMP_LABELS)
            predictions = read_predictions(_read(options["pred"]), options["pred"])
            aligned = align(gold, labels, predictions, options["pred"], also_known=SMP_LABELS)
        except IntentFileError as error:
            raise CommandError(_one_line(error)) from error
        scores = score(labels, aligned.gold, aligned.pred)
        interval = None
        if options["bootstrap"]:
            interval = official_f_interval(
                aligned.gold,
                aligned.pred,
                len(labels),
                resamples=options["bootstrap"],
                seed=options["seed"],
            )
        if options["format"] == "json":
            self.stdout.write(json.dumps(as_json(scores, interval), ensure_ascii=False))
        else:
            self.stdout.write(as_table(scores, interval))
