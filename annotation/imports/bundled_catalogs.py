"""Item catalogs that come inside a Concept4CRS upload, imported with its transcripts.

Any file under a folder named ``catalogs`` is a catalog file. A ``<dataset>_entity2id.json``
with its ``<dataset>_id2info.json`` is the Concept4CRS catalog ``<dataset>``, serving the
datasets ``<dataset>`` and ``<dataset>_eval``; a ``<name>.csv`` (``id,name,year,attributes``)
is the catalog ``<name>``, serving ``<name>``. Each is checked and stored on its own, after the
transcripts were written (``catalog_store.store_catalog``, one transaction each); one that
cannot be read, or whose dataset another catalog serves, is skipped with its reason, and so is
every other file of the folder. Nothing of a catalog is stored when the transcripts fail.
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings

from annotation.concept.catalog_store import served_datasets, store_catalog
from annotation.concept.catalogs import (
    CatalogContents,
    read_catalog_csv,
    read_concept4crs_catalog,
)
from annotation.imports.limits import TooLarge, read_bounded
from annotation.imports.problems import ImportFailed

CATALOG_FOLDER = "catalogs"
_ENTITY2ID = "_entity2id.json"
_ID2INFO = "_id2info.json"


@dataclass(frozen=True)
class CatalogOutcome:
    """What became of one catalog of an upload: imported (``items`` > 0, the datasets it
    serves) or skipped (``skipped`` says why). ``files`` are named as in the upload."""

    files: tuple[str, ...]
    name: str = ""
    items: int = 0
    datasets: tuple[str, ...] = ()
    skipped: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "files": list(self.files), "datasets": list(self.datasets)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CatalogOutcome:
        return cls(
            files=tuple(data.get("files", ())),
            name=str(data.get("name", "")),
            items=int(data.get("items", 0)),
            datasets=tuple(data.get("datasets", ())),
            skipped=str(data.get("skipped", "")),
        )


def is_catalog_file(relative: str) -> bool:
    """Whether a file of the upload sits in a ``catalogs`` folder."""
    return CATALOG_FOLDER in PurePosixPath(relative).parts[:-1]


def import_bundled_catalogs(source: Path) -> list[CatalogOutcome]:
    """Import every catalog inside a Concept4CRS folder or zip; one outcome per catalog or
    skipped file, in file order."""
    with tempfile.TemporaryDirectory(prefix="evalsite-catalogs-") as scratch:
        files = dict(_catalog_files(source, Path(scratch)))
        return list(_outcomes(files))


def _catalog_files(source: Path, scratch: Path) -> Iterator[tuple[str, Path | str]]:
    """Each catalog file's name in the upload, and where it can be read (or why not)."""
    if source.is_dir():
        for file in sorted(source.rglob("*")):
            relative = file.relative_to(source).as_posix()
            if file.is_file() and is_catalog_file(relative):
                yield relative, file
        return
    if not zipfile.is_zipfile(source):
        return
    limit = int(settings.IMPORT_MAX_UPLOAD_BYTES)
    # Files of one folder of the zip are unpacked into one scratch folder, under their names.
    folders: dict[str, Path] = {}
    with zipfile.ZipFile(source) as archive:
        for name in sorted(archive.namelist()):
            if name.endswith("/") or not is_catalog_file(name):
                continue
            parent = str(PurePosixPath(name).parent)
            folder = folders.setdefault(parent, scratch / str(len(folders)))
            folder.mkdir(exist_ok=True)
            target = folder / PurePosixPath(name).name
            try:
                with archive.open(name) as member:
                    target.write_bytes(read_bounded(member, limit))
            except TooLarge:
                yield name, "larger than an upload may be"
                continue
            yield name, target


def _outcomes(files: dict[str, Path | str]) -> Iterator[CatalogOutcome]:
    used: set[str] = set()
    for relative, where in files.items():
        if relative in used:
            continue
        if isinstance(where, str):
            yield CatalogOutcome((relative,), skipped=where)
            continue
        name = PurePosixPath(relative).name
        if name.lower().endswith(".csv"):
            stem = PurePosixPath(relative).stem
            yield _store((relative,), stem, served_datasets(stem), partial(read_catalog_csv, where))
        elif name.endswith(_ENTITY2ID) or name.endswith(_ID2INFO):
            dataset = name.removesuffix(_ENTITY2ID).removesuffix(_ID2INFO)
            folder = PurePosixPath(relative).parent
            pair = (
                str(folder / f"{dataset}{_ENTITY2ID}").removeprefix("./"),
                str(folder / f"{dataset}{_ID2INFO}").removeprefix("./"),
            )
            used.update(pair)
            missing = [path for path in pair if not isinstance(files.get(path), Path)]
            if missing:
                yield CatalogOutcome(
                    (relative,), skipped=f"{PurePosixPath(missing[0]).name} is missing beside it"
                )
                continue
            yield _store(
                pair,
                dataset,
                served_datasets(dataset, concept4crs=dataset),
                partial(read_concept4crs_catalog, Path(files[pair[0]]).parent, dataset),
            )
        else:
            yield CatalogOutcome(
                (relative,),
                skipped=(
                    "not a catalog file: a catalog is <dataset>_entity2id.json with "
                    "<dataset>_id2info.json, or <name>.csv"
                ),
            )


def _store(
    files: tuple[str, ...], name: str, datasets: list[str], read: Callable[[], CatalogContents]
) -> CatalogOutcome:
    try:
        contents = read()
        stored = store_catalog(name, datasets, contents)
    except ImportFailed as failure:
        return CatalogOutcome(files, name=name, skipped=failure.summary.replace("\n", "; "))
    return CatalogOutcome(
        files, name=stored.name, items=len(contents.items), datasets=tuple(stored.datasets)
    )
