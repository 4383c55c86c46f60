"""A small reader of the zh_Hans catalog for tests: each entry's ids, translations and flags."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str = ""
    msgid_plural: str = ""
    msgstr: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def untranslated(self) -> bool:
        return not self.msgstr or any(not text for text in self.msgstr)


def catalog_path() -> Path:
    return Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


def read_catalog(path: Path | None = None) -> list[Entry]:
    """Every live entry of the catalog, without the header (obsolete ``#~`` entries are skipped)."""
    entries: list[Entry] = []
    current = Entry()
    target: str | None = None
    for number, raw in enumerate((path or catalog_path()).read_text("utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            if current.line:
                entries.append(current)
            current, target = Entry(), None
        elif line.startswith("#,"):
            current.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith("msgctxt "):
            current.msgctxt, target = ast.literal_eval(line[8:]), "context"
        elif line.startswith("msgid_plural "):
            current.msgid_plural, target = ast.literal_eval(line[13:]), "plural"
        elif line.startswith("msgid "):
            current.msgid, current.line, target = ast.literal_eval(line[6:]), number, "id"
        elif line.startswith("msgstr"):
            current.msgstr.append(ast.literal_eval(line.split(" ", 1)[1]))
            target = "str"
        elif line.startswith('"'):
            text = ast.literal_eval(line)
            if target == "id":
                current.msgid += text
            elif target == "context":
                current.msgctxt += text
            elif target == "plural":
                current.msgid_plural += text
            elif target == "str":
                current.msgstr[-1] += text
    if current.line:
        entries.append(current)
    return [entry for entry in entries if entry.msgid]
