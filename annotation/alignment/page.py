"""What the alignment pages show: versions side by side, the verdict, and the triage queue."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import get_language

from annotation.alignment.adjudication import decided
from annotation.alignment.comparison import VersionOnDimension, best_version, compare_versions
from annotation.alignment.confusion import OrdinalConfusion
from annotation.alignment.data import aligned_dimensions, campaign_scores
from annotation.alignment.replacement import ReplacementVerdict, replacement_verdict
from annotation.alignment.stored_split import ensure_split
from annotation.alignment.triage import (
    Disagreement,
    OverallDisagreement,
    dimension_disagreements,
    overall_disagreements,
)
from annotation.models import Campaign, EvaluatorVersion, LLMScore, SplitItem
from annotation.report.scores import item_pks
from evalsite.language import is_chinese

RESAMPLES = 1000
QUEUE_PER_DIMENSION = 10
QUEUE_OVERALL = 20


def version_names(campaign: Campaign) -> list[str]:
    """Recorded versions in the order they were made, then evaluators whose scores were
    imported without a version, by name."""
    recorded = list(
        campaign.evaluator_versions.order_by("created_at", "pk").values_list("name", flat=True)
    )
    scored = set(
        LLMScore.objects.filter(transcript__campaign=campaign)
        .values_list("evaluator", flat=True)
        .distinct()
    )
    return [name for name in recorded if name in scored] + sorted(scored - set(recorded))


@dataclass(frozen=True)
class HeatCell:
    count: int
    in_band: bool
    shade: int  # 0 to 9: the count's share of the largest, in tenths (CSS class shade-N)


@dataclass(frozen=True)
class Heatmap:
    points: tuple[str, ...]
    rows: tuple[tuple[str, tuple[HeatCell, ...]], ...]


def heatmap(confusion: OrdinalConfusion) -> Heatmap:
    most = max((max(row) for row in confusion.counts), default=0) or 1
    labels = tuple(f"{point:g}" for point in confusion.points)
    return Heatmap(
        points=labels,
        rows=tuple(
            (
                labels[row],
                tuple(
                    HeatCell(count, confusion.in_band(row, column), round(9 * count / most))
                    for column, count in enumerate(counts)
                ),
            )
            for row, counts in enumerate(confusion.counts)
        ),
    )


@dataclass(frozen=True)
class DimensionBlock:
    key: str
    name: str
    versions: tuple[tuple[VersionOnDimension, Heatmap], ...]


@dataclass(frozen=True)
class AlignmentSummary:
    version_rows: tuple[tuple[str, EvaluatorVersion | None], ...]
    dimensions: tuple[DimensionBlock, ...]
    best: str | None
    verdict: ReplacementVerdict
    calibration_items: int
    held_out_items: int
    epsilon: float


def _names(campaign: Campaign) -> dict[str, str]:
    chinese = is_chinese(get_language() or "")
    return {
        dimension.key: dimension.name_zh if chinese else dimension.name_en
        for dimension in aligned_dimensions(campaign)
    }


def alignment_summary(campaign: Campaign, *, resamples: int = RESAMPLES) -> AlignmentSummary:
    """Every version on every aligned dimension, the best version and the verdict."""
    alignment = ensure_split(campaign)
    versions = version_names(campaign)
    names = _names(campaign)
    epsilon = campaign.alt_test_epsilon
    compared = {
        data.key: compare_versions(data, epsilon=epsilon, resamples=resamples)
        for data in campaign_scores(campaign, versions)
    }
    ranges = {
        dimension.key: float(dimension.scale_max - dimension.scale_min)
        for dimension in aligned_dimensions(campaign)
    }
    best = best_version(compared, ranges)
    best_rows = [row for rows in compared.values() for row in rows if row.version == best]
    held_out = SplitItem.objects.filter(alignment=alignment, held_out=True).count()
    records = {version.name: version for version in campaign.evaluator_versions.all()}
    return AlignmentSummary(
        version_rows=tuple((name, records.get(name)) for name in versions),
        dimensions=tuple(
            DimensionBlock(
                key,
                names.get(key, key),
                tuple((row, heatmap(row.held_out.confusion)) for row in rows),
            )
            for key, rows in compared.items()
        ),
        best=best,
        verdict=replacement_verdict(best, best_rows, epsilon=epsilon, names=names),
        calibration_items=alignment.items.count() - held_out,
        held_out_items=held_out,
        epsilon=epsilon,
    )


@dataclass(frozen=True)
class QueueEntry:
    row: Disagreement
    transcript_id: int
    done: bool


@dataclass(frozen=True)
class Queue:
    version: str | None
    versions: tuple[str, ...]
    overall: tuple[tuple[OverallDisagreement, int, bool, str], ...]
    dimensions: tuple[tuple[str, tuple[QueueEntry, ...]], ...]


def adjudication_queue(campaign: Campaign, version: str | None) -> Queue:
    """The largest disagreements of ``version`` (the latest one by default)."""
    versions = version_names(campaign)
    if version not in versions:
        version = versions[0] if versions else None
    if version is None:
        return Queue(None, (), (), ())
    data = campaign_scores(campaign, [version])
    ids = item_pks(campaign)
    done = decided(campaign)
    names = _names(campaign)
    overall = tuple(
        (
            row,
            ids[row.item],
            (row.item, row.widest.dimension) in done,
            names.get(row.widest.dimension, row.widest.dimension),
        )
        for row in overall_disagreements(data, version)[:QUEUE_OVERALL]
    )
    blocks = tuple(
        (
            names.get(block.key, block.key),
            tuple(
                QueueEntry(row, ids[row.item], (row.item, row.dimension) in done)
                for row in dimension_disagreements(block, version)[:QUEUE_PER_DIMENSION]
            ),
        )
        for block in data
    )
    return Queue(version, tuple(versions), overall, blocks)
