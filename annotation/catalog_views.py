"""The coordinator's item catalogs page: every stored catalog, and the form that uploads one."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotation.catalog_upload import CatalogUploadForm, problems_text
from annotation.imports.problems import ImportFailed
from annotation.models import Catalog, CatalogItem
from evalsite.roles import coordinator_required


@coordinator_required
@require_http_methods(["GET", "POST"])
def catalogs(request: HttpRequest) -> HttpResponse:
    form = CatalogUploadForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            stored = form.store()
        except ImportFailed as failure:
            problems = problems_text(failure)
        else:
            messages.success(request, _("Catalog %(name)s imported.") % {"name": stored.name})
            return redirect("annotation:catalogs")
    return render(
        request,
        "annotation/catalogs.html",
        {"form": form, "problems": problems, "catalogs": _listed()},
        status=400 if request.method == "POST" else 200,
    )


def _listed() -> list[Catalog]:
    return list(
        Catalog.objects.annotate(
            items=Count("entries", filter=Q(entries__kind=CatalogItem.Kind.ITEM)),
            others=Count("entries", filter=Q(entries__kind=CatalogItem.Kind.ENTITY)),
        )
    )
