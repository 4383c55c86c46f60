"""The catalog upload form: a CSV catalog, or a Concept4CRS entity2id / id2info pair.

The files are checked completely by the one reader of their format
(``annotation.concept.catalogs``) and stored in one transaction
(``annotation.concept.catalog_store``); a problem in any line leaves the catalogs as they
were, and is shown on the form with the file's name, the line and the field.
"""

from __future__ import annotations

import tempfile
from pathlib import Path, PurePath
from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext_lazy as _

from annotation.concept.catalog_store import served_datasets, store_catalog
from annotation.concept.catalogs import read_catalog_csv, read_concept4crs_catalog
from annotation.imports.limits import within_upload_limit
from annotation.imports.problems import ImportFailed
from annotation.models import Catalog

_ENTITY2ID = "_entity2id.json"
_ID2INFO = "_id2info.json"


class CatalogUploadForm(forms.Form):
    name = forms.SlugField(
        max_length=100,
        label=_("Catalog name"),
        help_text=_("Letters, digits, '-' and '_'. A catalog of the same name is replaced."),
    )
    csv_file = forms.FileField(
        required=False,
        label=_("CSV catalog"),
        help_text=_("Columns id,name,year,attributes; attributes separated by '|'."),
        validators=[within_upload_limit],
    )
    entity2id = forms.FileField(
        required=False,
        label=_("Concept4CRS <dataset>_entity2id.json"),
        validators=[within_upload_limit],
    )
    id2info = forms.FileField(
        required=False,
        label=_("Concept4CRS <dataset>_id2info.json"),
        validators=[within_upload_limit],
    )
    serves = forms.CharField(
        required=False,
        max_length=500,
        label=_("Datasets it describes"),
        help_text=_(
            "Comma-separated transcript dataset values, such as redial_eval. By default the "
            "catalog's name, and for a Concept4CRS pair also <dataset>_eval."
        ),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        csv_file, entity, info = (cleaned.get(key) for key in ("csv_file", "entity2id", "id2info"))
        if bool(csv_file) == bool(entity or info):
            raise forms.ValidationError(
                _("Upload either a CSV catalog or a Concept4CRS pair of files."), code="source"
            )
        if csv_file and PurePath(csv_file.name).suffix.lower() != ".csv":
            self.add_error("csv_file", _("%(file)s is not a .csv file.") % {"file": csv_file.name})
        if entity or info:
            self._check_pair(entity, info)
        return cleaned

    def _check_pair(self, entity: UploadedFile | None, info: UploadedFile | None) -> None:
        if entity is None or not (entity.name or "").endswith(_ENTITY2ID):
            self.add_error("entity2id", _("Upload the <dataset>_entity2id.json file here."))
        if info is None or not (info.name or "").endswith(_ID2INFO):
            self.add_error("id2info", _("Upload the <dataset>_id2info.json file here."))
        elif entity is not None and self.pair_dataset(entity) != self.pair_dataset(info):
            self.add_error(
                "id2info",
                _("%(info)s and %(entity)s name different datasets.")
                % {"info": info.name, "entity": entity.name},
            )

    @staticmethod
    def pair_dataset(upload: UploadedFile) -> str:
        name = PurePath(upload.name or "").name
        return name.removesuffix(_ENTITY2ID).removesuffix(_ID2INFO)

    def store(self) -> Catalog:
        """Read and store the uploaded catalog; ImportFailed (nothing changed) on a problem."""
        data = self.cleaned_data
        name: str = data["name"]
        serves = str(data.get("serves") or "").split(",")
        with tempfile.TemporaryDirectory(prefix="evalsite-catalog-") as scratch:
            folder = Path(scratch)
            if data.get("csv_file"):
                contents = read_catalog_csv(_saved(data["csv_file"], folder))
                return store_catalog(name, served_datasets(name, serves), contents)
            dataset = self.pair_dataset(data["entity2id"])
            _saved(data["entity2id"], folder)
            _saved(data["id2info"], folder)
            contents = read_concept4crs_catalog(folder, dataset)
            return store_catalog(name, served_datasets(name, serves, concept4crs=dataset), contents)


def _saved(upload: UploadedFile, folder: Path) -> Path:
    target = folder / PurePath(upload.name or "catalog").name
    with target.open("wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
    return target


def problems_text(failure: ImportFailed) -> list[str]:
    return [str(problem) for problem in failure.problems] + (
        [f"… {failure.total - len(failure.problems)} more"]
        if failure.total > len(failure.problems)
        else []
    )
