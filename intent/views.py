from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evalsite import jobs, roles
from evalsite.downloads import csv_download, json_download, xlsx_download
from evalsite.spreadsheets import About
from intent import access, datasets, exports, pages, submissions
from intent.endpoint.job import start_endpoint_run
from intent.files import IntentFileError
from intent.forms import EndpointForm, SplitUploadForm, SubmissionForm, TeamForm, TrackForm
from intent.models import Track


def _refused(request: HttpRequest, heading: str, summary: str) -> None:
    """One message per problem, so that each line stays readable."""
    messages.error(request, heading)
    for line in summary.splitlines():
        messages.error(request, line)


@login_required
def track_list(request: HttpRequest) -> HttpResponse:
    if roles.has_role(request.user, roles.COORDINATORS):
        tracks = Track.objects.all()
    elif roles.has_role(request.user, roles.PARTICIPANTS):
        tracks = Track.objects.filter(teams__members__pk=request.user.pk or 0).distinct()
    else:
        raise PermissionDenied
    return render(request, "intent/track_list.html", {"tracks": tracks})


@roles.coordinator_required
def track_new(request: HttpRequest) -> HttpResponse:
    form = TrackForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        form.instance.created_by_id = request.user.pk
        track = form.save()
        return redirect(track)
    return render(request, "intent/track_form.html", {"form": form})


@login_required
def track_detail(request: HttpRequest, track_id: int) -> HttpResponse:
    track, team = access.visible_track(request.user, track_id)
    is_coordinator = roles.has_role(request.user, roles.COORDINATORS)
    context = pages.track_context(track, team, is_coordinator)
    return render(request, "intent/track.html", context)


@roles.coordinator_required
@require_POST
def upload_split(request: HttpRequest, track_id: int) -> HttpResponse:
    track = get_object_or_404(Track, pk=track_id)
    form = SplitUploadForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            count = datasets.import_split(
                track, form.cleaned_data["split"], upload.text, upload.name
            )
            messages.success(request, _("%(count)d utterances stored.") % {"count": count})
        except IntentFileError as error:
            _refused(request, _("Nothing was stored."), error.summary)
    else:
        messages.error(request, " ".join(str(e) for e in form.errors.get("file", [])))
    return redirect(track)


@roles.coordinator_required
@require_POST
def add_team(request: HttpRequest, track_id: int) -> HttpResponse:
    track = get_object_or_404(Track, pk=track_id)
    form = TeamForm(request.POST, track=track)
    if not form.is_valid():
        context = pages.track_context(track, access.team_of(request.user, track), True)
        context["team_form"] = form
        return render(request, "intent/track.html", context, status=422)
    team = track.teams.create(name=form.cleaned_data["name"])
    team.members.set(form.cleaned_data["members"])
    messages.success(request, _("%(name)s added to the track.") % {"name": team.name})
    return redirect(track)


@roles.coordinator_required
@require_POST
def set_phase(request: HttpRequest, track_id: int) -> HttpResponse:
    track = get_object_or_404(Track, pk=track_id)
    phase = request.POST.get("phase", "")
    if phase not in Track.Phase.values:
        return HttpResponse(_("Unknown phase."), status=400)
    track.phase = phase
    track.save(update_fields=["phase"])
    return redirect(track)


@roles.participant_required
@require_POST
def submit(request: HttpRequest, track_id: int) -> HttpResponse:
    team = access.own_team(request.user, track_id)
    form = SubmissionForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for e in form.errors.get("file", [])))
        return redirect(team.track)
    try:
        upload = form.cleaned_data["file"]
        submission = submissions.submit_file(team, request.user, upload.text, upload.name)
    except (IntentFileError, submissions.SubmissionRefused) as error:
        summary = error.summary if isinstance(error, IntentFileError) else str(error)
        _refused(request, _("The submission was not accepted."), summary)
        return redirect(team.track)
    return redirect(submission)


@roles.participant_required
@require_POST
def endpoint(request: HttpRequest, track_id: int) -> HttpResponse:
    team = access.own_team(request.user, track_id)
    form = EndpointForm(request.POST, instance=team)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for e in form.errors.get("endpoint_url", [])))
        return redirect(team.track)
    form.save()
    if "run" not in request.POST or not team.endpoint_url:
        messages.success(request, _("Endpoint saved."))
        return redirect(team.track)
    try:
        submission, job = start_endpoint_run(team, request.user)
    except submissions.SubmissionRefused as error:
        messages.error(request, str(error))
        return redirect(team.track)
    jobs.start(job)
    return redirect(submission)


@login_required
def submission_detail(request: HttpRequest, submission_id: int) -> HttpResponse:
    submission = access.visible_submission(request.user, submission_id)
    submissions.settle_stopped_runs(submission.team)
    submission.refresh_from_db(fields=["status"])
    is_coordinator = roles.has_role(request.user, roles.COORDINATORS)
    context = pages.submission_context(submission, is_coordinator)
    return render(request, "intent/submission.html", context)


@login_required
def submission_export(request: HttpRequest, submission_id: int, fmt: str) -> HttpResponse:
    submission = access.visible_submission(request.user, submission_id)
    scored = pages.scored_for_export(submission)
    if scored is None:
        raise Http404
    name = f"intent-submission-{submission.pk}.{fmt}"
    breakdown = roles.has_role(request.user, roles.COORDINATORS)
    if fmt == "csv":
        text = exports.scores_csv(scored.scores, scored.interval, breakdown=breakdown)
        return csv_download(text, name)
    about = About(
        _("Intent track %(track)s: submission %(number)s of team %(team)s")
        % {
            "track": submission.team.track.name,
            "number": submission.pk,
            "team": submission.team.name,
        },
        request.user.get_username(),
    )
    workbook = exports.scores_workbook(
        scored.scores, scored.interval, breakdown=breakdown, about=about
    )
    return xlsx_download(workbook, name)


@login_required
def leaderboard(request: HttpRequest, track_id: int) -> HttpResponse:
    track, _team = access.visible_track(request.user, track_id)
    return render(request, "intent/leaderboard.html", pages.leaderboard_context(track))


@login_required
def test_inputs(request: HttpRequest, track_id: int) -> HttpResponse:
    track, _team = access.visible_track(request.user, track_id)
    body = json.dumps(pages.test_inputs(track), ensure_ascii=False, indent=1)
    return json_download(body, f"track-{track.pk}-test.json")
