"""The coordinator's fidelity pages: studies, a study's data and simulators, the report."""

from __future__ import annotations

import io

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evalsite.downloads import csv_download, xlsx_download
from evalsite.llm.errors import LLMConfigError
from evalsite.llm.forms import EndpointForm
from evalsite.roles import coordinator_required
from fidelity import pages
from fidelity.forms import (
    CatalogForm,
    ItemsUploadForm,
    PromptsForm,
    RequestsUploadForm,
    SimulatorForm,
    StudyForm,
)
from fidelity.models import Simulator, Study
from fidelity.prompts import PromptsError, make_prompts
from fidelity.report import study_report
from fidelity.sheets import csv_bytes, write_report_workbook
from fidelity.upload_job import REUPLOAD_REFUSED, start_upload


@coordinator_required
def study_list(request: HttpRequest) -> HttpResponse:
    form = StudyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        study = form.save(commit=False)
        study.created_by = request.user
        study.save()
        return redirect("fidelity:study", study_id=study.pk)
    studies = Study.objects.select_related("catalog")
    return render(request, "fidelity/studies.html", {"studies": studies, "form": form})


@coordinator_required
def study_page(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    return render(request, "fidelity/study.html", pages.study_context(study))


@coordinator_required
@require_POST
def upload(request: HttpRequest, study_id: int, kind: str) -> HttpResponse:
    """The file goes to a background job (`fidelity.upload_job`); its page shows the progress
    and, for a bad file, each problem with its line and field."""
    study = get_object_or_404(Study, pk=study_id)
    form_class = ItemsUploadForm if kind == "items" else RequestsUploadForm
    form = form_class(request.POST, request.FILES)
    if form.is_valid() and study.prompts.exists():
        form.add_error(kind, _(REUPLOAD_REFUSED))
    if not form.is_valid():
        context = pages.study_context(study, **{f"{kind}_form": form})
        return render(request, "fidelity/study.html", context, status=400)
    job = start_upload(study, kind, form.cleaned_data[kind], request.user)
    return redirect("job_detail", job_id=job.pk)


@coordinator_required
@require_POST
def set_catalog(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = CatalogForm(request.POST)
    if form.is_valid():
        saved, warning = pages.set_catalog(study, form.cleaned_data["catalog"])
        if saved:
            messages.success(request, _("The catalog is saved."))
        if warning:
            (messages.warning if saved else messages.error)(request, warning)
    return redirect("fidelity:study", study_id=study.pk)


@coordinator_required
@require_POST
def draw_prompts(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = PromptsForm(request.POST, study=study)
    if not form.is_valid():
        context = pages.study_context(study, prompts_form=form)
        return render(request, "fidelity/study.html", context, status=400)
    try:
        count = make_prompts(study, form.counts())
    except PromptsError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("%(count)d prompts drawn.") % {"count": count})
    return redirect("fidelity:study", study_id=study.pk)


@coordinator_required
@require_POST
def add_simulator(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = SimulatorForm(request.POST, study=study)
    if form.is_valid():
        pages.add_simulator(study, form)
        return redirect("fidelity:study", study_id=study.pk)
    context = pages.study_context(study, simulator_form=form)
    return render(request, "fidelity/study.html", context, status=400)


@coordinator_required
def edit_simulator(request: HttpRequest, study_id: int, simulator_id: int) -> HttpResponse:
    """A simulator's settings, changed while it has no answers."""
    simulator = get_object_or_404(Simulator, pk=simulator_id, study_id=study_id)
    form = SimulatorForm(request.POST or None, study=simulator.study, instance=simulator)
    if request.method == "POST":
        if locked := pages.simulator_locked(simulator):
            messages.error(request, locked)
            return redirect("fidelity:study", study_id=study_id)
        if form.is_valid():
            pages.update_simulator(simulator, form)
            messages.success(request, _("The simulator is saved."))
            return redirect("fidelity:study", study_id=study_id)
    context = pages.simulator_context(simulator, form)
    status = 400 if request.method == "POST" else 200
    return render(request, "fidelity/simulator.html", context, status=status)


@coordinator_required
@require_POST
def delete_simulator(request: HttpRequest, study_id: int, simulator_id: int) -> HttpResponse:
    """Delete a simulator that has no answers; one with answers is refused with why."""
    simulator = get_object_or_404(Simulator, pk=simulator_id, study_id=study_id)
    if locked := pages.simulator_locked(simulator):
        messages.error(request, locked)
    else:
        simulator.delete()
        messages.success(request, _("Simulator %(label)s deleted.") % {"label": simulator.label})
    return redirect("fidelity:study", study_id=study_id)


@coordinator_required
@require_POST
def run_simulator(request: HttpRequest, study_id: int, simulator_id: int) -> HttpResponse:
    simulator = get_object_or_404(Simulator, pk=simulator_id, study_id=study_id)
    if not simulator.study.prompts.exists():
        messages.error(request, _("Draw the prompts first."))
        return redirect("fidelity:study", study_id=study_id)
    try:
        job = pages.start_simulation(simulator, request.user)
    except LLMConfigError as error:
        messages.error(request, _("This simulator cannot run: %(error)s") % {"error": error})
        return redirect("fidelity:study", study_id=study_id)
    return redirect("job_detail", job_id=job.pk)


@coordinator_required
@require_POST
def embed_requests(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = EndpointForm(request.POST, prefix="embed")
    if form.is_valid():
        job = pages.start_embedding(study, form, request.user)
        return redirect("job_detail", job_id=job.pk)
    context = pages.study_context(study, embedding_form=form)
    return render(request, "fidelity/study.html", context, status=400)


@coordinator_required
@require_POST
def label_aspects(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = EndpointForm(request.POST, prefix="label")
    if form.is_valid():
        job = pages.start_labelling(study, form, request.user)
        return redirect("job_detail", job_id=job.pk)
    context = pages.study_context(study, labelling_form=form)
    return render(request, "fidelity/study.html", context, status=400)


@coordinator_required
def report_page(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    return render(request, "fidelity/report.html", pages.report_context(study))


@coordinator_required
def report_csv(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    return csv_download(csv_bytes(study_report(study)).decode("utf-8"), f"fidelity-{study.pk}.csv")


@coordinator_required
def report_workbook(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    buffer = io.BytesIO()
    write_report_workbook(buffer, study_report(study), study.name, request.user.get_username())
    return xlsx_download(buffer.getvalue(), f"fidelity-{study.pk}.xlsx")
