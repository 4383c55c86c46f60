from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotation.models import (
    Adjudication,
    AdjudicationReason,
    Assignment,
    Campaign,
    Catalog,
    CatalogItem,
    Dimension,
    Level,
    LLMScore,
    Response,
    Rubric,
    Transcript,
)


def _frozen(rubric: Rubric | None) -> bool:
    return rubric is not None and rubric.is_frozen


class DimensionInline(admin.TabularInline):
    model = Dimension
    extra = 0
    fields = ("position", "key", "name_en", "name_zh", "kind", "scale_min", "scale_max")
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _frozen(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _frozen(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _frozen(obj) and super().has_delete_permission(request, obj)


@admin.register(Rubric)
class RubricAdmin(admin.ModelAdmin):
    list_display = ("key", "version", "name_en", "frozen")
    inlines = [DimensionInline]

    @admin.display(boolean=True, description=_("frozen (has annotations)"))
    def frozen(self, obj: Rubric) -> bool:
        return obj.is_frozen

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _frozen(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _frozen(obj) and super().has_delete_permission(request, obj)


class LevelInline(admin.TabularInline):
    model = Level
    extra = 0

    def _rubric(self, obj: Any) -> Rubric | None:
        return obj.rubric if isinstance(obj, Dimension) else None

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _frozen(self._rubric(obj)) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _frozen(self._rubric(obj)) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _frozen(self._rubric(obj)) and super().has_delete_permission(request, obj)


@admin.register(Dimension)
class DimensionAdmin(admin.ModelAdmin):
    list_display = ("key", "rubric", "kind", "scale_min", "scale_max", "level_of_measurement")
    list_filter = ("rubric", "kind")
    inlines = [LevelInline]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        rubric = obj.rubric if isinstance(obj, Dimension) else None
        return not _frozen(rubric) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        rubric = obj.rubric if isinstance(obj, Dimension) else None
        return not _frozen(rubric) and super().has_delete_permission(request, obj)


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "rubric",
        "annotations_per_item",
        "item_order",
        "alt_test_epsilon",
        "status",
        "created_at",
    )
    list_filter = ("status", "item_order")
    filter_horizontal = ("annotators",)
    search_fields = ("name",)


@admin.register(Transcript)
class TranscriptAdmin(admin.ModelAdmin):
    list_display = ("external_id", "campaign", "kind", "system", "dataset", "active_count")
    list_filter = ("campaign", "kind", "system", "dataset")
    search_fields = ("external_id",)
    readonly_fields = ("active_count",)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("transcript", "annotator", "status", "held_at", "submitted_at")
    list_filter = ("campaign", "status")
    raw_id_fields = ("transcript", "annotator", "campaign")

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Only the queue creates assignments, so that the counts it keeps stay true.
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
    list_display = ("transcript", "dimension", "value", "updated_at")
    list_filter = ("dimension__rubric",)
    raw_id_fields = ("assignment", "transcript", "dimension")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(LLMScore)
class LLMScoreAdmin(admin.ModelAdmin):
    list_display = ("transcript", "dimension", "evaluator", "score")
    list_filter = ("evaluator", "dimension")
    raw_id_fields = ("transcript", "dimension")


@admin.register(Catalog)
class CatalogAdmin(admin.ModelAdmin):
    """Catalogs come from ``manage.py import_catalog``, which validates the file and keeps each
    dataset to one catalog; here they can be looked at and deleted."""

    list_display = ("name", "datasets", "source", "imported_at", "entry_count")
    readonly_fields = ("name", "datasets", "source", "imported_at")
    search_fields = ("name",)

    @admin.display(description=_("entries"))
    def entry_count(self, obj: Catalog) -> int:
        return obj.entries.count()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(CatalogItem)
class CatalogItemAdmin(admin.ModelAdmin):
    list_display = ("name", "year", "item_id", "kind", "catalog")
    list_filter = ("catalog", "kind")
    search_fields = ("name", "item_id")
    readonly_fields = ("catalog", "kind", "item_id", "name", "year", "attributes")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(AdjudicationReason)
class AdjudicationReasonAdmin(admin.ModelAdmin):
    list_display = ("label_en", "label_zh", "position")
    list_editable = ("label_zh", "position")


@admin.register(Adjudication)
class AdjudicationAdmin(admin.ModelAdmin):
    list_display = ("transcript", "dimension", "score", "reason", "adjudicator", "decided_at")
    list_filter = ("reason",)
    raw_id_fields = ("transcript",)
