"""``manage.py fidelity_measures FILE --task T``: simulator-fidelity measures from a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalsite.agreement.common import InputError
from evalsite.fidelity.common import DEFAULT_RESAMPLES, DEFAULT_SEED
from evalsite.fidelity.embeddings import EndpointEmbedder
from evalsite.fidelity.tasks import TASKS, measure_file
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMConfigError, LLMError

# The measures each task's table shows, by their JSON names; a "_ci" key beside one is its CI.
TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "items_talk": ("entropy_cs_bits", "entropy_bits", "n_mentions", "n_distinct", "n_responders"),
    "bin_pref": ("pearson_r", "yes_rate", "n_items", "n_answers"),
    "feedback": ("coherence", "accept_rate_positive", "reject_rate_negative", "n_responders"),
    "rec_request": ("type_token_ratio", "embedding_diversity", "n_requests", "n_responders"),
}


def _cell(shown: dict[str, object], name: str) -> str:
    value = shown.get(name)
    if value is None:
        return "n/a"
    if isinstance(value, int):
        return str(value)
    interval = shown.get(f"{name}_ci")
    text = f"{value:.3f}" if isinstance(value, float) else str(value)
    if isinstance(interval, list):
        text += f" [{interval[0]:.3f}, {interval[1]:.3f}]"
    return text


def format_table(task: str, groups: dict[str, dict[str, object]]) -> str:
    """One block per group: each measure with its CI, then its notes."""
    lines: list[str] = []
    for name, shown in groups.items():
        lines.append(f"group: {name}")
        lines.extend(f"  {column:<22}{_cell(shown, column)}" for column in TABLE_COLUMNS[task])
        for part in ("comparison", "by_frequency"):
            extra = shown.get(part)
            if isinstance(extra, dict):
                lines.append(f"  {part}: {json.dumps(extra, ensure_ascii=False)}")
        notes = shown.get("notes")
        if isinstance(notes, list):
            lines.extend(f"  note: {note}" for note in notes)
        lines.append("")
    return "\n".join(lines)


class Command(BaseCommand):
    help = (
        "Measures of how closely simulated users behave like people (Yoon et al., 2024), per "
        "responder group, from a file of responses to one task: items_talk (JSONL), bin_pref "
        "(CSV), feedback (CSV) or rec_request (JSONL). See docs/fidelity.md for the formats."
    )
    # It reads a file and prints numbers: neither the database nor the URLconf is involved.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the responses (JSONL or CSV, by task)")
        parser.add_argument("--task", choices=TASKS, required=True)
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
        parser.add_argument("--format", choices=("json", "table"), default="json")
        parser.add_argument(
            "--embeddings-base-url",
            metavar="URL",
            help="rec_request: an OpenAI-compatible endpoint (such as https://api.openai.com/v1) "
            "that embeds requests without embeddings in the file; calls are recorded and cached",
        )
        parser.add_argument(
            "--embeddings-model", metavar="MODEL", help="the endpoint's embedding model"
        )
        parser.add_argument(
            "--api-key-env",
            metavar="VAR",
            help="the environment variable holding the endpoint's key",
        )

    def embedder(self, options: dict[str, Any]) -> EndpointEmbedder | None:
        url, model = options["embeddings_base_url"], options["embeddings_model"]
        if url is None and model is None:
            return None
        if options["task"] != "rec_request":
            raise CommandError("--embeddings-base-url and --embeddings-model are for rec_request")
        if not url or not model:
            raise CommandError("give both --embeddings-base-url and --embeddings-model")
        settings = {"base_url": url, "model": model, "cache": True}
        if options["api_key_env"]:
            settings["api_key_env"] = options["api_key_env"]
        try:
            return EndpointEmbedder(LLMConfig.from_config(settings))
        except LLMConfigError as error:
            raise CommandError(str(error)) from error

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        if options["bootstrap"] < 0:
            raise CommandError("--bootstrap cannot be negative (0 turns CIs off)")
        if options["seed"] < 0:
            raise CommandError("--seed must be zero or positive")
        embed = self.embedder(options)
        try:
            result = measure_file(
                path,
                options["task"],
                resamples=options["bootstrap"],
                seed=options["seed"],
                embed=embed,
            )
        except InputError as error:
            raise CommandError(f"{path}: {error}") from error
        except LLMError as error:
            raise CommandError(f"the embeddings endpoint failed: {error}") from error
        report = result.as_json()
        if options["format"] == "table":
            groups = report["groups"]
            assert isinstance(groups, dict)
            self.stdout.write(format_table(options["task"], groups), ending="")
        else:
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False))
