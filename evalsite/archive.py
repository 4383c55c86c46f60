"""Archived campaigns, of either kind: the refusal of new work, shown as its own page.

A view (or the helper it calls) raises ``CampaignArchived`` where a judge or annotator asks
for work in an archived campaign; the middleware answers it with a page that says so, with
the 403 status of any refusal, instead of the generic "not allowed" page. `archive` and
`restore` set and clear the ``archived_at`` field that both kinds of campaign have.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone


class CampaignArchived(PermissionDenied):
    """Work was asked for in an archived campaign."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class ArchivedCampaignMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, CampaignArchived):
            return None
        return render(request, "campaign_archived.html", {"name": exception.name}, status=403)


def archive(campaign: models.Model) -> None:
    """Hide ``campaign`` (of either kind) from the people who work in it."""
    if campaign.archived_at is None:  # type: ignore[attr-defined]
        campaign.archived_at = timezone.now()  # type: ignore[attr-defined]
        campaign.save(update_fields=["archived_at"])


def restore(campaign: models.Model) -> None:
    """Show an archived ``campaign`` again."""
    if campaign.archived_at is not None:  # type: ignore[attr-defined]
        campaign.archived_at = None  # type: ignore[attr-defined]
        campaign.save(update_fields=["archived_at"])


def set_archived(request: HttpRequest, campaign: models.Model, archived: bool, said: str) -> None:
    """Archive or restore ``campaign`` from a coordinator's page, saying ``said`` to them."""
    (archive if archived else restore)(campaign)
    messages.success(request, said)
