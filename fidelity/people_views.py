"""The coordinator's buttons that send a study's prompts to annotators and collect answers."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evalsite.roles import coordinator_required
from fidelity import people
from fidelity.models import Study
from fidelity.people_page import SendForm


def _back(study: Study) -> HttpResponse:
    return redirect(reverse("fidelity:study", args=[study.pk]) + "#people")


@coordinator_required
@require_POST
def send(request: HttpRequest, study_id: int) -> HttpResponse:
    """Send the prompts not sent yet to annotators."""
    study = get_object_or_404(Study, pk=study_id)
    form = SendForm(request.POST)
    if not form.is_valid() or not study.prompts.exists():
        messages.error(request, _("Draw the prompts first, and ask for 1 to 20 people."))
        return _back(study)
    sent = people.send_prompts(study, form.cleaned_data["people"])
    added = sum(row.added for row in sent)
    messages.success(request, _("%(count)d prompts sent to annotators.") % {"count": added})
    return _back(study)


@coordinator_required
@require_POST
def collect(request: HttpRequest, study_id: int) -> HttpResponse:
    """Store every submitted annotation as a people's answer."""
    study = get_object_or_404(Study, pk=study_id)
    collected = people.collect_answers(study)
    messages.success(
        request,
        _("%(stored)d answers from people stored; %(incomplete)d annotations left out.")
        % {"stored": collected.stored, "incomplete": collected.incomplete},
    )
    return _back(study)
