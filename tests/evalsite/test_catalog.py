"""The Chinese catalog is complete: every entry translated, none fuzzy."""

from __future__ import annotations

from pathlib import Path

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
