"""The annotator's workspace, the coordinator's dashboard, and the import pages.

Annotators only ever get querysets of the transcript itself and of their own answers:
nothing here loads LLM scores or other people's answers for them.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import F, Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, push_url

from annotation import progress, queue
from annotation.alignment.adjudication import is_adjudicator
from annotation.forms import AnswerForm, ImportScoresForm, ImportTranscriptsForm
from annotation.imports.formats import guess_format
from annotation.jobs import store_upload, store_uploads
from annotation.models import Assignment, Campaign, Dimension, Level, Transcript
from evalsite import jobs, live_changes
from evalsite.archive import CampaignArchived
from evalsite.http import HtmxHttpRequest
from evalsite.roles import annotator_required, coordinator_required

PAGE_SIZE = 50
# The score upload shares its page with the transcript upload; the prefix keeps field ids apart.
SCORES_PREFIX = "scores"


def _campaign_for_annotator(request: HttpRequest, campaign_id: int) -> Campaign:
    campaign = get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)
    if not campaign.open_to(request.user):
        raise PermissionDenied
    if campaign.is_archived:
        raise CampaignArchived(campaign.name)
    return campaign


def _dimensions_for(transcript: Transcript) -> list[Dimension]:
    levels = Prefetch("levels", queryset=Level.objects.order_by("value"))
    dimensions = transcript.campaign.rubric.dimensions.all().prefetch_related(levels)
    return [dimension for dimension in dimensions if dimension.applies_to(transcript)]


def _answer_form(assignment: Assignment) -> AnswerForm:
    """The answer form of ``assignment``, filled with what the annotator answered so far."""
    responses = list(assignment.responses.select_related("dimension"))
    return AnswerForm(
        assignment=assignment,
        dimensions=_dimensions_for(assignment.transcript),
        lang=get_language(),
        initial=AnswerForm.initial_from(assignment, responses),
    )


def _workspace_context(
    request: HttpRequest,
    assignment: Assignment,
    form: AnswerForm | None = None,
    *,
    fresh: bool = False,
) -> dict[str, Any]:
    transcript = assignment.transcript
    campaign = transcript.campaign
    form = _answer_form(assignment) if form is None else form
    left, right = _sides(assignment)
    return {
        "campaign": campaign,
        "transcript": transcript,
        "assignment": assignment,
        "revising": assignment.status == Assignment.Status.SUBMITTED,
        "form": form,
        "questions": form.questions(),
        "left": left,
        "right": right,
        "turns": list(enumerate(transcript.turns, start=1)),
        "show_feelings": campaign.show_feelings,
        **_bars(request, campaign, fresh=fresh),
        **_item_links(request, campaign, transcript),
    }


def _sides(assignment: Assignment) -> tuple[Any, Any]:
    """A pairwise item's responses as the annotator sees them: left, then right."""
    transcript = assignment.transcript
    if assignment.swapped:
        return transcript.response_b, transcript.response_a
    return transcript.response_a, transcript.response_b


def _item_links(request: HttpRequest, campaign: Campaign, transcript: Transcript) -> dict[str, Any]:
    return {
        "item_url": reverse("annotation:item", args=[campaign.pk, transcript.pk]),
        "skip_url": reverse("annotation:skip", args=[campaign.pk, transcript.pk]),
        "skipped_count": queue.skipped(request.user, campaign).count(),
    }


def _render_workspace(
    request: HtmxHttpRequest, assignment: Assignment, form: AnswerForm | None = None
) -> HttpResponse:
    context = _workspace_context(request, assignment, form)
    if request.htmx:
        return render(request, "annotation/_workspace.html", context)
    return render(request, "annotation/item.html", context)


def _render_next(
    request: HtmxHttpRequest, campaign: Campaign, skipped: Transcript | None = None
) -> HttpResponse:
    """After a submit or a skip: the next item as a partial for htmx, a redirect otherwise.

    The bars are counted afresh, so that they include what was just submitted; after a
    skip, the page offers to undo it.
    """
    if not request.htmx:
        return redirect("annotation:work", campaign.pk)
    undo = {"just_skipped": skipped} if skipped is not None else {}
    assignment = queue.next_for(request.user, campaign)
    if assignment is None:
        context = {**_done_context(request, campaign, fresh=True), **undo}
        response = render(request, "annotation/_done.html", context)
        return push_url(response, reverse("annotation:work", args=[campaign.pk]))
    context = {**_workspace_context(request, assignment, fresh=True), **undo}
    response = render(request, "annotation/_workspace.html", context)
    return push_url(
        response, reverse("annotation:item", args=[campaign.pk, assignment.transcript_id])
    )


def _bars(
    request: HttpRequest, campaign: Campaign, *, fresh: bool = False, finished: bool = False
) -> dict[str, progress.Bar]:
    figures = progress.campaign_figures(campaign, fresh=fresh)
    return {
        "my_bar": progress.annotator_bar(request.user, campaign, figures, finished=finished),
        "campaign_bar": progress.campaign_bar(campaign, figures),
    }


def _done_context(
    request: HttpRequest, campaign: Campaign, *, fresh: bool = False
) -> dict[str, Any]:
    """Nothing is left for the annotator: their bar says done, whatever their share was.
    An adjudicator of the campaign is told why the queue gives them nothing; anyone else who
    skipped items is told they can take them up again."""
    adjudicator = is_adjudicator(request.user, campaign)
    return {
        "campaign": campaign,
        "adjudicator": adjudicator,
        "skipped_count": 0 if adjudicator else queue.skipped(request.user, campaign).count(),
        **_bars(request, campaign, fresh=fresh, finished=True),
    }


@annotator_required
def work(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """Hand out the next item and send the annotator to its page."""
    campaign = _campaign_for_annotator(request, campaign_id)
    assignment = queue.next_for(request.user, campaign)
    if assignment is None:
        template = "annotation/_done.html" if request.htmx else "annotation/done.html"
        return render(request, template, _done_context(request, campaign))
    return redirect("annotation:item", campaign.pk, assignment.transcript_id)


@annotator_required
@require_http_methods(["GET", "POST"])
def item(request: HtmxHttpRequest, campaign_id: int, transcript_id: int) -> HttpResponse:
    """One item of the workspace: GET shows it, POST submits (or revises) the answers."""
    campaign = _campaign_for_annotator(request, campaign_id)
    assignment = _usable_assignment(request, campaign, transcript_id)
    if assignment is None:
        messages.info(request, _("That item is not waiting for you; here is your next one."))
        return redirect("annotation:work", campaign.pk)
    if request.method == "GET":
        return _render_workspace(request, assignment)
    return _submit_answers(request, campaign, assignment)


def _usable_assignment(
    request: HttpRequest, campaign: Campaign, transcript_id: int
) -> Assignment | None:
    """The person's assignment of the transcript when they may open it, or submit to it.

    A held or submitted item can be opened; an expired one still takes the answers
    that were being written when it expired.
    """
    transcript = get_object_or_404(
        Transcript.objects.select_related("campaign__rubric"), pk=transcript_id, campaign=campaign
    )
    assignment = (
        Assignment.objects.filter(transcript=transcript, annotator_id=request.user.pk)
        .select_related("transcript__campaign__rubric")
        .first()
    )
    usable = {Assignment.Status.HELD, Assignment.Status.SUBMITTED}
    if request.method == "POST":
        usable.add(Assignment.Status.EXPIRED)
    if assignment is None or assignment.status not in usable:
        return None
    return assignment


def _submit_answers(
    request: HtmxHttpRequest, campaign: Campaign, assignment: Assignment
) -> HttpResponse:
    transcript = assignment.transcript
    revising = assignment.status == Assignment.Status.SUBMITTED
    form = AnswerForm(
        request.POST,
        assignment=assignment,
        dimensions=_dimensions_for(transcript),
        lang=get_language(),
    )
    if not form.is_valid():
        return _render_workspace(request, assignment, form)
    try:
        queue.submit(request.user, transcript, form.answers(), form.cleaned_data["time_on_task_ms"])
    except queue.ItemUnavailable as reason:
        messages.warning(request, str(reason))
        return _render_next(request, campaign)
    if revising:
        messages.success(request, _("Your answers were updated."))
        mine_url = reverse("annotation:mine", args=[campaign.pk])
        return HttpResponseClientRedirect(mine_url) if request.htmx else redirect(mine_url)
    return _render_next(request, campaign)


@annotator_required
@require_POST
def skip(request: HtmxHttpRequest, campaign_id: int, transcript_id: int) -> HttpResponse:
    campaign = _campaign_for_annotator(request, campaign_id)
    transcript = get_object_or_404(Transcript, pk=transcript_id, campaign=campaign)
    try:
        queue.skip(request.user, transcript)
    except queue.ItemUnavailable as reason:
        messages.warning(request, str(reason))
        return _render_next(request, campaign)
    return _render_next(request, campaign, skipped=transcript)


@annotator_required
@require_POST
def take_up(request: HtmxHttpRequest, campaign_id: int, transcript_id: int) -> HttpResponse:
    """Hold again an item the annotator skipped: the undo after a skip, and the skipped list."""
    campaign = _campaign_for_annotator(request, campaign_id)
    transcript = get_object_or_404(Transcript, pk=transcript_id, campaign=campaign)
    try:
        queue.take_up(request.user, transcript)
    except queue.ItemUnavailable as reason:
        messages.warning(request, str(reason))
        return redirect(reverse("annotation:mine", args=[campaign.pk]) + "#skipped")
    item_url = reverse("annotation:item", args=[campaign.pk, transcript.pk])
    return HttpResponseClientRedirect(item_url) if request.htmx else redirect(item_url)


@annotator_required
def mine(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The annotator's submitted items, to revise, and skipped ones, to take up again."""
    campaign = _campaign_for_annotator(request, campaign_id)
    submitted = (
        Assignment.objects.filter(
            campaign=campaign, annotator_id=request.user.pk, status=Assignment.Status.SUBMITTED
        )
        .select_related("transcript")
        .order_by("-submitted_at", "-pk")
    )
    page = Paginator(submitted, PAGE_SIZE).get_page(request.GET.get("page"))
    skipped = queue.skipped(request.user, campaign)
    context = {"campaign": campaign, "page": page, "skipped": skipped}
    return render(request, "annotation/mine.html", context)


@coordinator_required
def campaigns(request: HttpRequest) -> HttpResponse:
    rows = [
        {
            "campaign": campaign,
            "bar": progress.campaign_bar(campaign, progress.campaign_figures(campaign)),
        }
        for campaign in Campaign.objects.select_related("rubric").order_by(
            F("archived_at").asc(nulls_first=True), "-created_at", "-id"
        )
    ]
    return render(request, "annotation/campaigns.html", {"rows": rows})


@coordinator_required
def dashboard(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Progress per annotator, coverage per item, and every transcript with its scores' link."""
    campaign = get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)
    page = Paginator(campaign.transcripts.order_by("position", "pk"), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    counts = progress.submitted_counts([t.pk for t in page])
    return render(
        request,
        "annotation/dashboard.html",
        {
            "campaign": campaign,
            "bar": progress.campaign_bar(campaign, progress.campaign_figures(campaign, fresh=True)),
            "held": progress.held_count(campaign),
            "changes_pushed": live_changes.pushes_are_shared(),
            "annotators": progress.annotator_rows(campaign),
            "coverage": progress.coverage(campaign),
            "page": page,
            "rows": [(t, counts.get(t.pk, 0)) for t in page],
        },
    )


@coordinator_required
def roster(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The dashboard's roster part, fetched again while the campaign runs."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    context = {
        "campaign": campaign,
        "bar": progress.campaign_bar(campaign, progress.campaign_figures(campaign, fresh=True)),
        "annotators": progress.annotator_rows(campaign),
    }
    return render(request, "annotation/_roster.html", context)


@coordinator_required
def transcript_scores(request: HttpRequest, campaign_id: int, transcript_id: int) -> HttpResponse:
    """One transcript with every human answer and every LLM score: for coordinators only."""
    transcript = get_object_or_404(
        Transcript.objects.select_related("campaign__rubric"),
        pk=transcript_id,
        campaign_id=campaign_id,
    )
    return render(request, "annotation/transcript_scores.html", _scores_context(transcript))


def _scores_context(transcript: Transcript) -> dict[str, Any]:
    human = transcript.responses.select_related("dimension", "assignment__annotator").order_by(
        "dimension__position", "assignment__annotator__username"
    )
    machine = transcript.llm_scores.select_related("dimension").order_by(
        "dimension__position", "evaluator"
    )
    assignments = transcript.assignments.select_related("annotator").order_by("held_at")
    return {
        "campaign": transcript.campaign,
        "transcript": transcript,
        "turns": list(enumerate(transcript.turns, start=1)),
        "show_feelings": True,
        "left": transcript.response_a,
        "right": transcript.response_b,
        "human": human,
        "machine": machine,
        "assignments": assignments,
    }


def _start_import(request: HttpRequest, kind: str, params: dict[str, Any]) -> HttpResponse:
    job = jobs.create(kind, {**params, "uploaded": True}, user=request.user)
    jobs.start(job)
    return redirect("job_detail", job_id=job.pk)


@coordinator_required
@require_http_methods(["GET", "POST"])
def import_transcripts(request: HttpRequest) -> HttpResponse:
    initial = {"campaign": request.GET.get("campaign")}
    form = ImportTranscriptsForm(request.POST or None, request.FILES or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            path, personas = store_uploads(
                form.cleaned_data["file"], form.cleaned_data.get("personas")
            )
        except ValidationError as no_room:
            form.add_error("file", no_room)
            return _render_imports(request, transcripts_form=form)
        return _start_import(
            request,
            "annotation.import_transcripts",
            {
                "path": str(path),
                "campaign": form.campaign_name,
                "format": form.cleaned_data["format"],
                "personas": str(personas) if personas else None,
                "dedupe_cells": form.cleaned_data["dedupe_cells"],
                "on_annotated": form.cleaned_data["on_annotated"],
                "annotations_per_item": form.cleaned_data.get("annotations_per_item"),
            },
        )
    return _render_imports(request, transcripts_form=form)


@coordinator_required
@require_http_methods(["GET", "POST"])
def import_scores(request: HttpRequest) -> HttpResponse:
    form = ImportScoresForm(request.POST or None, request.FILES or None, prefix=SCORES_PREFIX)
    if request.method == "POST" and form.is_valid():
        try:
            path = store_upload(form.cleaned_data["file"])
        except ValidationError as no_room:
            form.add_error("file", no_room)
            return _render_imports(request, scores_form=form)
        return _start_import(
            request,
            "annotation.import_llm_scores",
            {
                "path": str(path),
                "campaign": form.cleaned_data["campaign"].name,
                "evaluator": form.cleaned_data["evaluator"].strip(),
                "format": guess_format(path),
            },
        )
    return _render_imports(request, scores_form=form)


def _render_imports(
    request: HttpRequest,
    transcripts_form: ImportTranscriptsForm | None = None,
    scores_form: ImportScoresForm | None = None,
) -> HttpResponse:
    failed = (transcripts_form is not None and transcripts_form.is_bound) or (
        scores_form is not None and scores_form.is_bound
    )
    return render(
        request,
        "annotation/import.html",
        {
            "transcripts_form": transcripts_form or ImportTranscriptsForm(),
            "scores_form": scores_form or ImportScoresForm(prefix=SCORES_PREFIX),
        },
        status=400 if failed else 200,
    )
