"""The rubric library: rubrics are JSON files (``fixtures/rubrics/``) loaded into the database.

A rubric file holds ``key``, ``version``, ``name_en``, ``name_zh``, ``description`` and a list
of ``dimensions``; each dimension holds ``key``, ``name_en``, ``name_zh``, ``question_en``,
``question_zh``, ``kind``, ``scale`` [min, max], ``level_of_measurement``, ``rationale``,
optionally ``condition``, and one level per scale value (``value``, ``label_en``,
``label_zh``, ``description_en``, ``description_zh``). A free-text dimension (``kind``
``text``) has neither scale nor levels; it may say ``required`` (true unless false) and
``max_chars`` (its longest answer, 2000 unless given). A pairwise dimension with an odd
number of levels offers its middle level as "neither".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from annotation.models import Dimension, Level, Rubric

DEFAULT_RUBRIC_PATH = Path(settings.BASE_DIR) / "fixtures" / "rubrics" / "concept.json"

MAX_TEXT_DEFAULT = 2000
MAX_TEXT_LIMIT = 20000
_DIMENSION_TEXT = ("key", "name_en", "name_zh", "question_en", "question_zh")
_LEVEL_TEXT = ("label_en", "label_zh", "description_en", "description_zh")


class RubricFileError(ValueError):
    """A rubric file that cannot be loaded; the message names the field."""


def _text(data: dict[str, Any], field: str, where: str) -> str:
    value = data.get(field)
    if not isinstance(value, str) or not value.strip():
        raise RubricFileError(f"{where}.{field} must be a non-empty string")
    return value


def _choice(data: dict[str, Any], field: str, where: str, choices: list[str]) -> str:
    value = data.get(field)
    if value not in choices:
        raise RubricFileError(f"{where}.{field} must be one of {', '.join(choices)}")
    return str(value)


def _checked_dimension(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise RubricFileError(f"{where} must be an object")
    fields: dict[str, Any] = {name: _text(data, name, where) for name in _DIMENSION_TEXT}
    fields["kind"] = _choice(data, "kind", where, list(Dimension.Kind.values))
    if fields["kind"] == Dimension.Kind.TEXT:
        return _checked_text_dimension(data, where, fields)
    fields["level_of_measurement"] = _choice(
        data, "level_of_measurement", where, list(Dimension.Measurement.values)
    )
    fields["rationale"] = _choice(
        {"rationale": data.get("rationale", "none")},
        "rationale",
        where,
        list(Dimension.Rationale.values),
    )
    fields["condition"] = _choice(
        {"condition": data.get("condition", "always")},
        "condition",
        where,
        list(Dimension.Condition.values),
    )
    scale = data.get("scale")
    if (
        not isinstance(scale, list)
        or len(scale) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in scale)
        or scale[0] >= scale[1]
    ):
        raise RubricFileError(f"{where}.scale must be [lowest, highest] integers, lowest first")
    fields["scale_min"], fields["scale_max"] = scale
    levels = data.get("levels")
    if not isinstance(levels, list):
        raise RubricFileError(f"{where}.levels must be a list")
    checked_levels: list[dict[str, Any]] = []
    for index, level in enumerate(levels):
        here = f"{where}.levels[{index}]"
        if not isinstance(level, dict):
            raise RubricFileError(f"{here} must be an object")
        value = level.get("value")
        if not isinstance(value, int) or isinstance(value, bool):
            raise RubricFileError(f"{here}.value must be an integer")
        checked_levels.append({"value": value, **{f: _text(level, f, here) for f in _LEVEL_TEXT}})
    values = sorted(level["value"] for level in checked_levels)
    if values != list(range(scale[0], scale[1] + 1)):
        raise RubricFileError(
            f"{where}.levels must describe every value from {scale[0]} to {scale[1]} once"
        )
    fields["levels"] = checked_levels
    return fields


def _checked_text_dimension(
    data: dict[str, Any], where: str, fields: dict[str, Any]
) -> dict[str, Any]:
    """A free-text question: no scale, no levels; whether it is required, and its length."""
    for absent in ("scale", "levels"):
        if absent in data:
            raise RubricFileError(f"{where}.{absent} does not apply to a text dimension")
    required = data.get("required", True)
    if not isinstance(required, bool):
        raise RubricFileError(f"{where}.required must be true or false")
    max_chars = data.get("max_chars", MAX_TEXT_DEFAULT)
    if (
        not isinstance(max_chars, int)
        or isinstance(max_chars, bool)
        or not 1 <= max_chars <= MAX_TEXT_LIMIT
    ):
        raise RubricFileError(f"{where}.max_chars must be an integer from 1 to {MAX_TEXT_LIMIT}")
    # The scale check of the table holds for every dimension; a text one never reads it.
    return {
        **fields,
        "level_of_measurement": Dimension.Measurement.NOMINAL,
        "rationale": Dimension.Rationale.NONE,
        "required": required,
        "max_chars": max_chars,
        "scale_min": 0,
        "scale_max": 1,
        "levels": [],
    }


def check_rubric_data(data: Any) -> dict[str, Any]:
    """Validate a parsed rubric file and return its fields; raises `RubricFileError`."""
    if not isinstance(data, dict):
        raise RubricFileError("a rubric file must hold one JSON object")
    version = data.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RubricFileError("version must be a positive integer")
    dimensions = data.get("dimensions")
    if not isinstance(dimensions, list) or not dimensions:
        raise RubricFileError("dimensions must be a non-empty list")
    checked = [_checked_dimension(d, f"dimensions[{i}]") for i, d in enumerate(dimensions)]
    keys = [d["key"] for d in checked]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise RubricFileError(f"dimension keys must be unique; repeated: {', '.join(duplicates)}")
    return {
        "key": _text(data, "key", "rubric"),
        "version": version,
        "name_en": _text(data, "name_en", "rubric"),
        "name_zh": _text(data, "name_zh", "rubric"),
        "description": str(data.get("description", "")),
        "dimensions": checked,
    }


def load_rubric(data: Any) -> tuple[Rubric, bool]:
    """Create or update the rubric version ``data`` describes; return it and whether it is new.

    Updating a version that already has annotations raises `RubricFrozen`: a changed rubric
    needs a new version number.
    """
    fields = check_rubric_data(data)
    with transaction.atomic():
        rubric, created = Rubric.objects.get_or_create(
            key=fields["key"],
            version=fields["version"],
            defaults={k: fields[k] for k in ("name_en", "name_zh", "description")},
        )
        if not created:
            rubric.check_not_frozen()
            for name in ("name_en", "name_zh", "description"):
                setattr(rubric, name, fields[name])
            rubric.save()
            rubric.dimensions.exclude(key__in=[d["key"] for d in fields["dimensions"]]).delete()
        for position, spec in enumerate(fields["dimensions"]):
            values = {k: v for k, v in spec.items() if k not in {"key", "levels"}}
            dimension, _ = Dimension.objects.update_or_create(
                rubric=rubric, key=spec["key"], defaults={**values, "position": position}
            )
            dimension.levels.exclude(value__in=[lv["value"] for lv in spec["levels"]]).delete()
            for level in spec["levels"]:
                Level.objects.update_or_create(
                    dimension=dimension,
                    value=level["value"],
                    defaults={k: v for k, v in level.items() if k != "value"},
                )
    return rubric, created


def load_rubric_file(path: str | Path) -> tuple[Rubric, bool]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RubricFileError(
            f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    return load_rubric(data)


def default_rubric() -> Rubric:
    """The newest CONCEPT rubric, loaded from its fixture the first time it is needed."""
    rubric = Rubric.objects.filter(key="concept").order_by("-version").first()
    if rubric is None:
        rubric, _ = load_rubric_file(DEFAULT_RUBRIC_PATH)
    return rubric
