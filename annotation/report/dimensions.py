"""The rubric dimensions as the report sees them, and which of them are pooled into one α."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from annotation.models import Dimension
from evalsite.agreement.common import Level

POOLED = "all"


@dataclass(frozen=True)
class DimensionSpec:
    """What the report needs to know about a rubric dimension."""

    key: str
    name_en: str
    name_zh: str
    kind: str
    level: Level
    scale_min: int
    scale_max: int

    @classmethod
    def of(cls, dimension: Dimension) -> DimensionSpec:
        # A yes/no answer is a category whatever the rubric file says.
        level = (
            "nominal" if dimension.kind == Dimension.Kind.BINARY else dimension.level_of_measurement
        )
        return cls(
            key=dimension.key,
            name_en=dimension.name_en,
            name_zh=dimension.name_zh,
            kind=dimension.kind,
            level=level,  # type: ignore[arg-type]
            scale_min=dimension.scale_min,
            scale_max=dimension.scale_max,
        )

    @property
    def is_pairwise(self) -> bool:
        return self.kind == Dimension.Kind.PAIRWISE

    @property
    def scale(self) -> tuple[float, float]:
        return float(self.scale_min), float(self.scale_max)

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name_en": self.name_en,
            "name_zh": self.name_zh,
            "kind": self.kind,
            "level": self.level,
            "scale": [self.scale_min, self.scale_max],
        }


def pooled_dimensions(present: Sequence[DimensionSpec]) -> list[DimensionSpec]:
    """The rated dimensions that share the most common level and scale, to pool into one α."""
    rated = [spec for spec in present if not spec.is_pairwise]
    if not rated:
        return []
    shapes = Counter((spec.level, spec.scale) for spec in rated)
    # Counter keeps first-seen order among ties, so the rubric's first shape wins a tie.
    shape = shapes.most_common(1)[0][0]
    pooled = [spec for spec in rated if (spec.level, spec.scale) == shape]
    # A single dimension pooled would only repeat that dimension's own figures.
    return pooled if len(pooled) > 1 else []
