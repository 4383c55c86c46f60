"""Adding many people at once from a CSV file, and deactivating one."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evalsite import bulk_people, roles
from evalsite.deactivation import CannotDeactivate, deactivate
from evalsite.invitation_forms import BulkPeopleForm


@roles.coordinator_required
def bulk_add(request: HttpRequest) -> HttpResponse:
    form = BulkPeopleForm(request.POST or None, request.FILES or None)
    context: dict[str, object] = {"form": form, "max_rows": f"{settings.PEOPLE_CSV_MAX_ROWS:,}"}
    if request.method == "POST" and form.is_valid():
        mail = form.cleaned_data["passwords"] == "mail"
        reading = bulk_people.read_people(form.cleaned_data["file"], need_email=mail)
        if reading.problems:
            context["problems"] = reading.problems
            return render(request, "people/bulk_add.html", context, status=422)
        site = f"{request.scheme}://{request.get_host()}"
        context["added"] = bulk_people.add_people(
            reading.newcomers, mail=mail, site=site, by=request.user
        )
        context["form"] = BulkPeopleForm()
    response = render(request, "people/bulk_add.html", context)
    # Links to choose a password are shown once: no browser or proxy may keep the page.
    response["Cache-Control"] = "no-store"
    return response


@roles.coordinator_required
@require_POST
def deactivate_person(request: HttpRequest, user_id: int) -> HttpResponse:
    person = get_object_or_404(User, pk=user_id)
    try:
        deactivate(person, by=request.user)
        done = _("%(name)s is deactivated; the work they held goes to others.")
        messages.success(request, done % {"name": person.username})
    except CannotDeactivate as refused:
        messages.error(request, str(refused))
    back = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        return redirect(back)
    return redirect("home")
