"""The Chinese catalog is complete (every entry translated, none fuzzy), in step with the
source (no message of the source missing from it) and compiled (the .mo says what the .po does)."""

from __future__ import annotations

import gettext
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.po_catalog import catalog_path, read_catalog


def test_every_entry_is_translated_and_none_is_fuzzy() -> None:
    entries = read_catalog()
    assert len(entries) > 500
    problems = [
        f"{catalog_path().name}:{entry.line}: "
        f"{'fuzzy' if 'fuzzy' in entry.flags else 'untranslated'} {entry.msgid!r}"
        for entry in entries
        if entry.untranslated or "fuzzy" in entry.flags
    ]
    assert not problems, "\n".join(problems)


def test_the_reader_sees_a_fuzzy_or_empty_entry(tmp_path: Path) -> None:
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: zh_Hans\\n"\n\n'
        '#, fuzzy\nmsgid "Home"\nmsgstr "首页"\n\n'
        'msgid "Log "\n"out"\nmsgstr ""\n\n'
        'msgid "one"\nmsgid_plural "many"\nmsgstr[0] "多"\n',
        "utf-8",
    )
    entries = {entry.msgid: entry for entry in read_catalog(po)}
    assert "fuzzy" in entries["Home"].flags
    assert entries["Log out"].untranslated
    assert not entries["one"].untranslated and entries["one"].msgid_plural == "many"


# What the catalog leaves out, as `make messages` does (see the Makefile's `messages` target).
IGNORED = (".venv/*", "tests/*", "bench/*", "examples/*")
NOT_SOURCE = {".venv", ".git", "tests", "bench", "examples", "test-artefacts", "test-results"}
PROBE = "A sentence that only this test writes into a copy of the source"


@pytest.mark.processes
def test_every_message_of_the_source_is_in_the_catalog(tmp_path: Path) -> None:
    """makemessages, run on a copy of the source with the catalog, adds nothing to it but the
    one sentence this test writes into the copy (which shows that a missing one is seen)."""
    base = Path(settings.BASE_DIR)
    copy = tmp_path / "src"
    copy.mkdir()
    for item in base.iterdir():
        if item.name in NOT_SOURCE or item.name.endswith(".egg-info") or item.is_symlink():
            continue
        if item.is_dir():
            shutil.copytree(item, copy / item.name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(item, copy / item.name)
    (copy / "evalsite" / "catalog_probe.py").write_text(
        f"from django.utils.translation import gettext\n\nPROBE = gettext({PROBE!r})\n"
    )
    ignores = [argument for pattern in IGNORED for argument in ("--ignore", pattern)]
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "zh_Hans", *ignores],
        cwd=copy,
        env={**os.environ, "DEBUG": "1"},
        check=True,
        capture_output=True,
    )
    before = {(entry.msgctxt, entry.msgid) for entry in read_catalog()}
    after = read_catalog(copy / catalog_path().relative_to(base))
    missing = sorted({(entry.msgctxt, entry.msgid) for entry in after} - before)
    assert missing == [("", PROBE)], (
        "messages of the source missing from the catalog (run `make messages`): "
        f"{[pair for pair in missing if pair != ('', PROBE)]}"
    )


@pytest.mark.processes
def test_the_compiled_catalog_holds_what_the_catalog_says(tmp_path: Path) -> None:
    """The .mo beside the .po is the .po compiled: every message, with the same translation."""
    compiled = tmp_path / "django.mo"
    subprocess.run(
        ["msgfmt", "--check-format", "-o", str(compiled), str(catalog_path())], check=True
    )
    with compiled.open("rb") as fresh, catalog_path().with_suffix(".mo").open("rb") as shipped:
        expected = gettext.GNUTranslations(fresh)._catalog  # type: ignore[attr-defined]
        found = gettext.GNUTranslations(shipped)._catalog  # type: ignore[attr-defined]
    assert len(expected) > 500
    differing = sorted(
        key for key in expected.keys() | found.keys() if expected.get(key) != found.get(key)
    )
    assert not differing, f"run compilemessages: the .mo differs on {differing[:20]}"
