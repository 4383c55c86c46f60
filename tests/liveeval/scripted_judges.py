"""Reading the scripted judges of ``tests/liveeval/scripts/`` (see its README)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).resolve().parent / "scripts"
TASK_CARDS = Path(__file__).resolve().parents[2] / "fixtures" / "task_cards.json"
DEFAULT_TODAY = dt.date(2026, 12, 1)


@dataclass(frozen=True)
class Script:
    key: str
    lang: str
    today: dt.date
    utterances: list[str]
    goal: dict[str, Any]


def read_script(path: Path, goal: dict[str, Any]) -> Script:
    lang = "zh"
    today = DEFAULT_TODAY
    utterances = []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if text.startswith("# lang:"):
            lang = text.split(":", 1)[1].strip()
        elif text.startswith("# today:"):
            today = dt.date.fromisoformat(text.split(":", 1)[1].strip())
        elif text and not text.startswith("#"):
            utterances.append(text)
    return Script(path.stem, lang, today, utterances, goal)


def all_scripts() -> list[Script]:
    cards = {card["key"]: card for card in json.loads(TASK_CARDS.read_text(encoding="utf-8"))}
    return [read_script(SCRIPTS / f"{key}.txt", card["goal"]) for key, card in cards.items()]
