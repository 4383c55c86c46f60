"""The Concept4CRS reader: CONCEPT's simulated dialogues, one JSON file each, in a folder or zip.

Files sit in ``<system>/<dataset>/<dialog>_<turn>_profile<P>_attribute<A>.json``; other files
are counted as ignored, except those of a ``catalogs`` folder: the item catalogs, imported
once the transcripts are written (``bundled_catalogs``). Each dialogue becomes a transcript
in the JSONL shape: ``assistant`` turns become ``system`` turns, the user's ``[END]`` marks
acceptance, and the accepted items are those the system named last (found in its text between
quotes if it listed none).
CONCEPT's ``personas.csv`` optionally gives each profile its emotion and age group.

A *cell* is one persona × attribute pair (``profile<P>``, ``attribute<A>``) within one system
folder and dataset; the corpus holds some cells more than once. The import counts the repeats,
and with ``dedupe_cells`` keeps only the lowest dialogue id (then turn) of each cell, noting
the skipped files in the kept transcript's ``metadata.dropped_duplicates``.
"""

from __future__ import annotations

import csv
import functools
import json
import re
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from django.utils.translation import gettext_noop

from annotation.concept.mentions import quoted_titles
from annotation.imports.bundled_catalogs import import_bundled_catalogs, is_catalog_file
from annotation.imports.csv_rows import csv_records
from annotation.imports.fields import (
    check_boolean,
    check_object,
    check_string,
    check_strings,
    join_path,
)
from annotation.imports.limits import TooLarge, read_bounded, transcript_limit
from annotation.imports.problems import FieldError, ImportFailed, Problem, Problems
from annotation.imports.progress import Progress, report_progress
from annotation.imports.result import ImportResult
from annotation.imports.writer import (
    REFUSE,
    TranscriptBatchWriter,
    import_validated,
    resolve_campaign,
)
from evalsite.storable_text import unstorable
from evalsite.user_simulation import has_end_mark

_CONCEPT_FILE = re.compile(
    r"^(?P<dialog>\d+)_(?P<turn>\d+)_profile(?P<profile>\d+)_attribute(?P<attribute>\d+)\.json$"
)
_PERSONA_NAME = re.compile(r"^(?P<emotion>.+?)---Age group=(?P<age>.+)$")


@dataclass(frozen=True)
class Persona:
    emotion: str
    age_group: str


def read_personas(path: str | Path) -> dict[int, Persona]:
    """CONCEPT's ``personas.csv``: ``Emotion---Age group=X,id,template,paraphrase``, no header.

    A line that is not UTF-8, a cell too long for CSV, or a name no database can store is a
    problem with its line; nothing is imported then."""
    path = Path(path)
    personas: dict[int, Persona] = {}
    problems = Problems()
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        line_no = 1
        for record in csv_records(reader, path, problems):
            record_line, line_no = line_no, reader.line_num + 1
            if not any(cell.strip() for cell in record):
                continue
            if len(record) < 2:
                problems.add(Problem(path.name, "needs the persona name and its id", record_line))
                continue
            if (bad := unstorable(record[0])) is not None:
                problems.add(Problem(path.name, f"the name cannot be stored: {bad}", record_line))
                continue
            match = _PERSONA_NAME.match(record[0].strip())
            if match is None:
                problems.add(
                    Problem(
                        path.name,
                        "the first cell must read 'Emotion---Age group=Group'",
                        record_line,
                    )
                )
                continue
            if not record[1].strip().isdigit():
                problems.add(
                    Problem(path.name, "the id (second cell) must be a number", record_line)
                )
                continue
            personas[int(record[1])] = Persona(match["emotion"].strip(), match["age"].strip())
    problems.raise_if_any()
    return personas


@dataclass(frozen=True)
class _DialogueFile:
    relative: str
    read: Callable[[], bytes]


def _nothing_to_close() -> None:
    return None


def _read_file(path: Path) -> bytes:
    with path.open("rb") as handle:
        return read_bounded(handle, transcript_limit())


def _read_member(archive: zipfile.ZipFile, name: str) -> bytes:
    """A zip member, decompressed piece by piece and never beyond a transcript's limit
    (the size a zip declares may lie)."""
    with archive.open(name) as member:
        return read_bounded(member, transcript_limit())


def _concept_files(source: Path) -> tuple[list[_DialogueFile], int, Callable[[], None]]:
    """The dialogue files of a Concept4CRS directory or zip, the number ignored, and a closer."""
    candidates: list[tuple[str, Callable[[], bytes]]] = []
    closer: Callable[[], None] = _nothing_to_close
    if source.is_dir():
        for file in sorted(source.rglob("*.json")):
            candidates.append(
                (file.relative_to(source).as_posix(), functools.partial(_read_file, file))
            )
    elif zipfile.is_zipfile(source):
        archive = zipfile.ZipFile(source)
        closer = archive.close
        for name in sorted(archive.namelist()):
            if name.endswith(".json") and not name.endswith("/"):
                candidates.append((name, functools.partial(_read_member, archive, name)))
    else:
        raise ImportFailed([Problem(source.name, "must be a directory or a .zip file")])
    candidates = [
        (relative, read) for relative, read in candidates if not is_catalog_file(relative)
    ]
    files = [
        _DialogueFile(relative, read)
        for relative, read in candidates
        if _CONCEPT_FILE.match(PurePosixPath(relative).name)
    ]
    return files, len(candidates) - len(files), closer


def _cell(relative: str) -> tuple[tuple[str, str, int, int], tuple[int, int]] | None:
    """The (system, dataset, profile, attribute) cell of a dialogue file and its (dialogue id,
    turn), or None if its path does not say (the reader reports such a file)."""
    path = PurePosixPath(relative)
    match = _CONCEPT_FILE.match(path.name)
    if match is None or len(path.parts) < 3:
        return None
    cell = (path.parts[-3], path.parts[-2], int(match["profile"]), int(match["attribute"]))
    return cell, (int(match["dialog"]), int(match["turn"]))


def duplicated_cells(relatives: list[str]) -> dict[str, list[str]]:
    """Each duplicated cell's first file (lowest dialogue id, then turn), mapped to the other
    files of the same cell, in the same order."""
    cells: dict[tuple[str, str, int, int], list[tuple[tuple[int, int], str]]] = {}
    for relative in relatives:
        found = _cell(relative)
        if found is not None:
            cells.setdefault(found[0], []).append((found[1], relative))
    duplicated = {}
    for members in cells.values():
        if len(members) > 1:
            ordered = [relative for _, relative in sorted(members)]
            duplicated[ordered[0]] = ordered[1:]
    return duplicated


def _accepted_items(turns: list[dict[str, Any]], accepting: int) -> list[str]:
    """What the user accepted: the items the system named last, found in its text if need be."""
    for index in range(accepting - 1, -1, -1):
        turn = turns[index]
        if turn["role"] != "system":
            continue
        if turn.get("items"):
            return list(turn["items"])
        quoted = quoted_titles(turn["text"])
        if quoted:
            return list(dict.fromkeys(title.strip().rstrip(".,") for title in quoted))
        break
    return list(dict.fromkeys(quoted_titles(turns[accepting]["text"])))


def concept_dialogue(
    data: Any,
    relative: str,
    personas: Mapping[int, Persona] | None,
    dropped: Sequence[str] = (),
) -> dict[str, Any]:
    """One Concept4CRS dialogue file as a transcript in the JSONL shape; raises `FieldError`.

    ``dropped`` names the files of the same cell that the import skipped in its favour."""
    parts = PurePosixPath(relative).parts
    if len(parts) < 3:
        raise FieldError("", "must sit in <system>/<dataset>/ folders")
    system, dataset, name = parts[-3], parts[-2], parts[-1]
    match = _CONCEPT_FILE.match(name)
    if match is None:
        raise FieldError("", "is not named <dialog>_<turn>_profile<P>_attribute<A>.json")
    simulated = check_object(check_object(data, "").get("simulator_dialog"), "simulator_dialog")
    context = simulated.get("context")
    if not isinstance(context, list) or not context:
        raise FieldError("simulator_dialog.context", "must be a non-empty list of turns")
    turns: list[dict[str, Any]] = []
    for index, raw in enumerate(context):
        path = f"simulator_dialog.context[{index}]"
        entry = check_object(raw, path)
        role = entry.get("role")
        if role not in ("user", "assistant"):
            raise FieldError(join_path(path, "role"), "must be 'user' or 'assistant'")
        turn: dict[str, Any] = {
            "role": "user" if role == "user" else "system",
            "text": check_string(entry.get("content"), join_path(path, "content")),
        }
        if "entity" in entry:
            turn["items"] = check_strings(entry["entity"], join_path(path, "entity"))
        if role == "user":
            if "feelings" in entry:
                turn["feelings"] = check_string(entry["feelings"], join_path(path, "feelings"))
        else:
            turn["entity"] = turn.get("items", [])
            for flag in ("rec_success_dialogue", "rec_success_rec"):
                if flag in entry:
                    turn[flag] = check_boolean(entry[flag], join_path(path, flag))
            if "rec_items" in entry:
                turn["rec_items"] = entry["rec_items"]
        turns.append(turn)
    accepting = next(
        (
            index
            for index, turn in enumerate(turns)
            if turn["role"] == "user" and has_end_mark(turn["text"])
        ),
        None,
    )
    profile_number = int(match["profile"])
    persona: dict[str, str] = {}
    profile = simulated.get("profile", "")
    if isinstance(profile, list):
        persona["text"] = " ".join(check_strings(profile, "simulator_dialog.profile"))
    else:
        persona["text"] = check_string(profile, "simulator_dialog.profile")
    if personas is not None:
        found = personas.get(profile_number + 1)
        if found is None:
            raise FieldError(
                "", f"profile{profile_number} has no persona with id {profile_number + 1}"
            )
        persona.update(emotion=found.emotion, age_group=found.age_group)
    metadata: dict[str, Any] = {
        "source": "concept4crs",
        "file": relative,
        "dialog_id": match["dialog"],
        "turn_id": int(match["turn"]),
        "profile": profile_number,
        "attribute": int(match["attribute"]),
        "seed_rec": data.get("rec", []),
        "seed_resp": data.get("resp", ""),
    }
    if dropped:
        metadata["dropped_duplicates"] = list(dropped)
    return {
        "id": f"{system}/{dataset}/{PurePosixPath(name).stem}",
        "system": system,
        "dataset": dataset,
        "lang": "en",
        "persona": persona,
        "preferences": check_strings(simulated.get("attributes"), "simulator_dialog.attributes"),
        "turns": turns,
        "outcome": {
            "accepted": accepting is not None,
            "accepted_items": [] if accepting is None else _accepted_items(turns, accepting),
            "turn": None if accepting is None else accepting + 1,
        },
        "metadata": metadata,
    }


def import_concept4crs(
    path: str | Path,
    campaign: str,
    *,
    personas: str | Path | None = None,
    dedupe_cells: bool = False,
    on_annotated: str = REFUSE,
    progress: Progress | None = None,
) -> ImportResult:
    """A Concept4CRS directory or zip: ``<system>/<dataset>/<dialog>_<turn>_profile<P>_...``.

    ``dedupe_cells`` keeps the lowest dialogue id of each duplicated persona × attribute cell
    and skips the other files of it; the result counts the repeats either way."""
    source = Path(path)
    persona_table = read_personas(personas) if personas is not None else None
    _, rubric = resolve_campaign(campaign)
    writer = TranscriptBatchWriter(rubric, on_annotated=on_annotated)
    problems = Problems()
    started = time.perf_counter()
    files, ignored, close_source = _concept_files(source)
    duplicated = duplicated_cells([dialogue.relative for dialogue in files])
    repeats = sum(len(others) for others in duplicated.values())
    if dedupe_cells:
        skipped = {relative for others in duplicated.values() for relative in others}
        files = [dialogue for dialogue in files if dialogue.relative not in skipped]
    try:
        if not files:
            raise ImportFailed(
                [
                    Problem(
                        source.name,
                        "holds no Concept4CRS dialogue files "
                        "(<system>/<dataset>/<dialog>_<turn>_profile<P>_attribute<A>.json)",
                    )
                ]
            )
        for number, dialogue in enumerate(files, start=1):
            report_progress(
                progress,
                number,
                2 * len(files),
                gettext_noop("Checking %(file)s"),
                file=dialogue.relative,
            )
            try:
                data = json.loads(dialogue.read().decode("utf-8-sig"))
            except TooLarge as exc:
                problems.add(Problem(dialogue.relative, f"the file {exc}"))
                continue
            except UnicodeDecodeError as exc:
                problems.add(
                    Problem(dialogue.relative, f"is not valid UTF-8 (byte {exc.start + 1})")
                )
                continue
            except json.JSONDecodeError as exc:
                problems.add(Problem(dialogue.relative, f"not valid JSON ({exc})"))
                continue
            except RecursionError:
                problems.add(Problem(dialogue.relative, "the JSON is nested too deeply to read"))
                continue
            try:
                dropped = duplicated.get(dialogue.relative, []) if dedupe_cells else []
                transcript = concept_dialogue(data, dialogue.relative, persona_table, dropped)
                writer.add(transcript, dialogue.relative)
            except FieldError as exc:
                problems.add(Problem(dialogue.relative, str(exc)))
    finally:
        close_source()
    result = ImportResult(
        ignored_files=ignored,
        duplicate_cells=repeats,
        duplicates_skipped=repeats if dedupe_cells else 0,
    )
    result = import_validated(
        campaign, rubric, writer, problems, result, progress, len(files), started
    )
    result.catalogs = import_bundled_catalogs(source)
    return result
