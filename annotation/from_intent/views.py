"""The coordinator's pages: send intent utterances to annotation, and how the labels agree."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from annotation.from_intent.agreement import intent_agreement
from annotation.from_intent.forms import SendUtterancesForm
from annotation.from_intent.utterances import send_utterances, track_of
from annotation.imports.problems import ImportFailed
from annotation.models import Campaign
from evalsite.roles import coordinator_required
from intent.models import Track


@coordinator_required
def send_page(request: HttpRequest, track_id: int) -> HttpResponse:
    track = get_object_or_404(Track, pk=track_id)
    form = SendUtterancesForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        name = form.cleaned_data["campaign"].strip()
        try:
            result = send_utterances(track, form.cleaned_data["split"], name)
        except ImportFailed as error:
            messages.error(request, error.summary)
        else:
            messages.success(request, _("%(count)d utterances sent.") % {"count": result.created})
            campaign = Campaign.objects.get(name=name)
            return redirect("from_intent:agreement", campaign_id=campaign.pk)
    context = {"track": track, "form": form}
    return render(request, "annotation/from_intent/send.html", context)


@coordinator_required
def agreement_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)
    track = track_of(campaign)
    if track is None:
        raise Http404
    context = {"campaign": campaign, "track": track, "result": intent_agreement(campaign, track)}
    return render(request, "annotation/from_intent/agreement.html", context)
