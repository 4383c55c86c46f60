"""Adding many people at once from a CSV file."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evalsite import bulk_people, roles
from evalsite.invitation_forms import BulkPeopleForm


@roles.coordinator_required
def bulk_add(request: HttpRequest) -> HttpResponse:
    form = BulkPeopleForm(request.POST or None, request.FILES or None)
    context: dict[str, object] = {"form": form}
    if request.method == "POST" and form.is_valid():
        mail = form.cleaned_data["passwords"] == "mail"
        reading = bulk_people.read_people(form.cleaned_data["file"], need_email=mail)
        if reading.problems:
            context["problems"] = reading.problems
            return render(request, "people/bulk_add.html", context, status=422)
        site = f"{request.scheme}://{request.get_host()}"
        context["added"] = bulk_people.add_people(reading.newcomers, mail=mail, site=site)
        context["form"] = BulkPeopleForm()
    response = render(request, "people/bulk_add.html", context)
    # Passwords are shown once: the page must not be kept by a browser or a proxy.
    response["Cache-Control"] = "no-store"
    return response
