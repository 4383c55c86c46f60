"""Item catalogs: the items (and other entities) a recommender could name for some datasets."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Catalog(models.Model):
    """The items a recommender could name for some datasets, as the CONCEPT scorecard checks
    them: an item a system names that is not here does not exist."""

    name = models.SlugField(_("name"), max_length=100, unique=True)
    datasets = models.JSONField(
        _("datasets served"),
        default=list,
        help_text=_("The transcript dataset values (such as redial_eval) this catalog describes."),
    )
    source = models.CharField(_("imported from"), max_length=500, blank=True)
    imported_at = models.DateTimeField(_("imported"), default=timezone.now)

    class Meta:
        ordering = ["name"]
        verbose_name = _("item catalog")

    def __str__(self) -> str:
        return self.name


class CatalogItem(models.Model):
    """One entry of a catalog: an item with its year and attributes, or another entity the
    datasets know (a person, a genre), which is never counted as an item."""

    class Kind(models.TextChoices):
        ITEM = "item", _("Item")
        ENTITY = "entity", _("Other entity (person, genre, year)")

    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="entries")
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.ITEM)
    item_id = models.CharField(
        _("id"), max_length=255, help_text=_("The id the systems use for it, if any.")
    )
    name = models.CharField(_("name"), max_length=500)
    year = models.PositiveSmallIntegerField(_("year"), null=True, blank=True)
    attributes = models.JSONField(_("attributes"), default=list, blank=True)

    class Meta:
        ordering = ["catalog", "kind", "name", "id"]
        verbose_name = _("catalog entry")
        verbose_name_plural = _("catalog entries")
        constraints = [
            models.UniqueConstraint(
                fields=["catalog", "kind", "item_id"], name="catalogitem_id_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.name
