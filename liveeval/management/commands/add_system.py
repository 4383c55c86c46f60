from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_slug
from django.db import transaction

from liveeval.connection_check import check_connection
from liveeval.models import DialogueSystem
from liveeval.systems.configuration import SystemConfigError, check_config, free_alias

HTTP_OPTIONS = ("endpoint", "timeout")
REQUIRED = {"http": ("endpoint",), "openai": ("base_url", "model")}
OPENAI_OPTIONS = (
    "base_url",
    "model",
    "api_key_env",
    "temperature",
    "seed",
    "max_tool_rounds",
    "system_prompt_file",
)


def option_name(key: str) -> str:
    return "--" + key.replace("_", "-")


class Command(BaseCommand):
    help = (
        "Add a system under test: an outside HTTP endpoint (--kind http --endpoint URL) or an "
        "LLM agent on an OpenAI-compatible endpoint (--kind openai --base-url URL --model M "
        "[--api-key-env VAR]). The system is stored whatever state its endpoint is in; "
        "--check then sends it one test message. Talk to it with 'python manage.py talk SLUG'."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="a short name for commands and exports, e.g. team-a")
        parser.add_argument("--kind", required=True, choices=["http", "openai"])
        parser.add_argument("--alias", help="the name judges see (default: the next 'System X')")
        parser.add_argument("--name", help="the real name, never shown to judges (default: slug)")
        parser.add_argument("--description", default="")
        parser.add_argument("--update", action="store_true", help="change an existing system")
        parser.add_argument(
            "--check",
            action="store_true",
            help="after storing it, send one test message and report the reply or the failure",
        )
        http = parser.add_argument_group("http systems")
        http.add_argument("--endpoint", help="the URL EvalSite POSTs each message to")
        http.add_argument("--timeout", type=float, help="seconds to wait for a reply (10)")
        llm = parser.add_argument_group("openai systems")
        llm.add_argument("--base-url", help="e.g. https://api.openai.com/v1 or http://host:8000/v1")
        llm.add_argument("--model", help="the model name the endpoint serves")
        llm.add_argument("--api-key-env", help="the environment variable holding the API key")
        llm.add_argument("--temperature", type=float, help="sampling temperature (0)")
        llm.add_argument("--seed", type=int, help="sampling seed (42)")
        llm.add_argument("--max-tool-rounds", type=int, help="tool rounds per message (5)")
        llm.add_argument(
            "--system-prompt-file", type=Path, help="a file with the system prompt to use instead"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["slug"]
        try:
            validate_slug(slug)
        except ValidationError:
            raise CommandError(
                f"{slug!r} is not a slug: use letters, digits, '-' and '_'"
            ) from None
        config = self._config(options)
        with transaction.atomic():
            system = DialogueSystem.objects.filter(slug=slug).select_for_update().first()
            if system is not None and not options["update"]:
                raise CommandError(f"a system {slug!r} already exists; pass --update to change it")
            if system is None and options["update"]:
                raise CommandError(f"there is no system {slug!r} to update")
            system = system or DialogueSystem(slug=slug, name=slug)
            alias = options["alias"] or (system.alias if system.pk else free_alias())
            if DialogueSystem.objects.filter(alias=alias).exclude(slug=slug).exists():
                raise CommandError(f"the alias {alias!r} is taken by another system")
            system.alias = alias
            system.name = options["name"] or system.name
            system.description = options["description"] or system.description
            system.kind = options["kind"]
            system.config = config
            system.save()
        verb = "Updated" if options["update"] else "Added"
        self.stdout.write(
            f"{verb} system {slug} ({alias}, {system.kind}). Try it: python manage.py talk {slug}"
        )
        if options["check"]:
            check = check_connection(system)
            if check.ok:
                self.stdout.write(f"Test exchange: replied in {check.latency_ms} ms: {check.reply}")
            else:
                self.stdout.write(
                    f"Test exchange failed after {check.latency_ms} ms: {check.failure}. "
                    "The system is stored; fix its endpoint, then try again with --check."
                )

    def _config(self, options: dict[str, Any]) -> dict[str, Any]:
        kind = options["kind"]
        mine, others = (
            (HTTP_OPTIONS, OPENAI_OPTIONS) if kind == "http" else (OPENAI_OPTIONS, HTTP_OPTIONS)
        )
        stray = [option_name(key) for key in others if options.get(key) is not None]
        if stray:
            raise CommandError(f"{', '.join(stray)} cannot be used with --kind {kind}")
        missing = [option_name(key) for key in REQUIRED[kind] if not options.get(key)]
        if missing:
            raise CommandError(f"--kind {kind} needs {' and '.join(missing)}")
        config = {key: options[key] for key in mine if options.get(key) is not None}
        prompt_file = config.pop("system_prompt_file", None)
        if prompt_file is not None:
            try:
                config["system_prompt"] = prompt_file.read_text(encoding="utf-8")
            except OSError as error:
                raise CommandError(f"--system-prompt-file: {error}") from None
        try:
            check_config(kind, config)
        except SystemConfigError as error:
            raise CommandError(f"this {kind} configuration cannot work: {error}") from None
        return config
