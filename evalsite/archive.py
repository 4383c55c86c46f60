"""Archived campaigns, of either kind: the refusal of new work, shown as its own page.

A view (or the helper it calls) raises ``CampaignArchived`` where a judge or annotator asks
for work in an archived campaign; the middleware answers it with a page that says so, with
the 403 status of any refusal, instead of the generic "not allowed" page.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


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
