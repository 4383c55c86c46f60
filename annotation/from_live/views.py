"""The coordinator's page that sends a live campaign's ended dialogues to annotation."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotation.from_live.forms import SendForm
from annotation.from_live.transcripts import send_to_annotation
from annotation.imports.problems import ImportFailed
from annotation.models import Campaign as AnnotationCampaign
from evalsite.roles import coordinator_required
from liveeval.models import Campaign


@coordinator_required
@require_http_methods(["GET", "POST"])
def send_to_annotation_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Send the campaign's ended dialogues to an annotation campaign as transcripts."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    form = SendForm(request.POST or None)
    if not form.is_valid():
        context = {"campaign": campaign, "send_form": form}
        status = 400 if form.is_bound else 200
        return render(request, "annotation/from_live/send.html", context, status=status)
    name = form.cleaned_data["annotation_campaign"].strip()
    try:
        result = send_to_annotation(campaign, name, form.cleaned_data["kinds"])
    except ImportFailed as failure:
        messages.error(request, failure.summary)
        return redirect("simulation:campaign", campaign_id=campaign.pk)
    messages.success(
        request,
        _("%(n)s dialogues sent to the annotation campaign %(name)s.")
        % {"n": result.transcripts, "name": name},
    )
    return redirect(AnnotationCampaign.objects.get(name=name))
