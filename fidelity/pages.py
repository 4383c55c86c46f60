"""What the study pages show and do: the study's data and forms, uploads, prompts and runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import Catalog as StoredCatalog
from evalsite import jobs
from evalsite.agreement.phrases import Phrase, shown
from evalsite.charts import Figure
from evalsite.fidelity.common import LOW_COVERAGE_MSGID
from evalsite.llm.forms import EndpointForm
from evalsite.models import Job
from fidelity.aspect_labels import create_labelling_job
from fidelity.embedding import create_embedding_job
from fidelity.figures import measure_figure
from fidelity.forms import (
    CatalogForm,
    ItemsUploadForm,
    PromptsForm,
    RequestsUploadForm,
    SimulatorForm,
)
from fidelity.matching import catalog_match, catalog_warning
from fidelity.models import Answer, Simulator, Study
from fidelity.names import MEASURE_LABELS
from fidelity.people_page import people_context
from fidelity.references import BUCKET_REFERENCES, Reference
from fidelity.report import (
    MAIN_MEASURE,
    AltTestCell,
    Cell,
    GroupRow,
    TaskReport,
    Verdict,
    study_report,
)
from fidelity.simulation import SIMULATE_JOB, create_simulation_job


@dataclass(frozen=True)
class SimulatorRow:
    simulator: Simulator
    answers: int
    job: Job | None


def set_catalog(study: Study, catalog: StoredCatalog | None) -> tuple[bool, str]:
    """Use ``catalog`` for the study's mentions: refused (False and why) when it holds none of
    the study's item ids; saved with a warning when it lacks some."""
    if catalog is not None and study.items.exists():
        match = catalog_match(study, catalog)
        if not match.matched:
            return False, _(
                "None of the study's item ids is in catalog %(catalog)s (for example %(ids)s); "
                "choose a catalog whose ids are the study's."
            ) % {"catalog": catalog.name, "ids": ", ".join(match.unmatched)}
    study.catalog = catalog
    study.save(update_fields=["catalog"])
    return True, catalog_warning(study)


def _last_job(simulator: Simulator) -> Job | None:
    found = Job.objects.filter(kind=SIMULATE_JOB, params__simulator=simulator.pk)
    return found.order_by("-id").first()


def study_context(study: Study, **forms: Any) -> dict[str, Any]:
    """The study page's context; ``forms`` replaces the blank form of the same name."""
    prompts = dict(
        study.prompts.values_list("task").annotate(n=Count("id")).values_list("task", "n")
    )
    answered = dict(
        Answer.objects.filter(prompt__study=study)
        .values_list("group")
        .annotate(n=Count("id"))
        .values_list("group", "n")
    )
    simulators = [
        SimulatorRow(simulator, answered.get(simulator.label, 0), _last_job(simulator))
        for simulator in study.simulators.all()
    ]
    blank: dict[str, Any] = {
        "catalog_form": CatalogForm(initial={"catalog": study.catalog_id}),
        "items_form": ItemsUploadForm(),
        "requests_form": RequestsUploadForm(),
        "simulator_form": SimulatorForm(study=study),
        "prompts_form": PromptsForm(study=study),
        "embedding_form": EndpointForm(prefix="embed"),
        "labelling_form": EndpointForm(prefix="label"),
    }
    return {
        "study": study,
        "n_items": study.items.count(),
        "n_requests": study.requests.count(),
        "prompts": [(TASK_TITLES[task], prompts[task]) for task in TASK_TITLES if task in prompts],
        "n_prompts": sum(prompts.values()),
        "people_answers": answered.get(Answer.PEOPLE_GROUP, 0),
        "simulators": simulators,
        **people_context(study),
        **blank,
        **forms,
    }


def add_simulator(study: Study, form: SimulatorForm) -> Simulator:
    return Simulator.objects.create(
        study=study,
        label=form.cleaned_data["label"],
        configuration=form.cleaned_data["configuration"],
        llm=SimulatorForm.llm_settings(form.cleaned_data),
    )


SIMULATOR_ANSWERED = gettext_lazy(
    "Simulator %(label)s has answers already; it cannot be changed or deleted, since its answers "
    "came from its settings. Add a new simulator instead."
)


def simulator_locked(simulator: Simulator) -> str:
    """Why ``simulator`` can no longer be edited or deleted, or "" while it has no answers."""
    if not simulator.answers.exists():
        return ""
    return str(SIMULATOR_ANSWERED) % {"label": simulator.label}


def update_simulator(simulator: Simulator, form: SimulatorForm) -> None:
    simulator.label = form.cleaned_data["label"]
    simulator.configuration = form.cleaned_data["configuration"]
    simulator.llm = SimulatorForm.llm_settings(form.cleaned_data)
    simulator.save(update_fields=["label", "configuration", "llm"])


def simulator_context(simulator: Simulator, form: SimulatorForm | None = None) -> dict[str, Any]:
    return {
        "study": simulator.study,
        "simulator": simulator,
        "form": form or SimulatorForm(study=simulator.study, instance=simulator),
        "locked": simulator_locked(simulator),
    }


def start_labelling(study: Study, form: EndpointForm, user: Any) -> Job:
    job = create_labelling_job(study, EndpointForm.llm_settings(form.cleaned_data), user)
    jobs.start(job)
    return job


def start_embedding(study: Study, form: EndpointForm, user: Any) -> Job:
    job = create_embedding_job(study, EndpointForm.llm_settings(form.cleaned_data), user)
    jobs.start(job)
    return job


def start_simulation(simulator: Simulator, user: Any) -> Job:
    job = create_simulation_job(simulator, user)
    jobs.start(job)
    return job


# The report ------------------------------------------------------------------------------------

TASK_TITLES = {
    "items_talk": gettext_lazy("Items talk"),
    "bin_pref": gettext_lazy("Binary preference"),
    "open_pref": gettext_lazy("Open preference"),
    "rec_request": gettext_lazy("Recommendation request"),
    "feedback": gettext_lazy("Feedback"),
}
BUCKET_LABELS = {
    "frequent": gettext_lazy("Frequent items"),
    "infrequent": gettext_lazy("Infrequent items"),
}
COUNTS = {"n_mentions", "n_distinct", "n_items", "n_aspects"}


@dataclass(frozen=True)
class ShownCell:
    value: str
    ci: str
    notes: str
    # Shown under the value, not only on hover: the Chao–Shen interval's low sample coverage.
    warning: str = ""


@dataclass(frozen=True)
class ShownRow:
    group: str
    is_people: bool
    n_answers: int
    cells: list[ShownCell]


ShownReference = tuple[str, str, float, str]


@dataclass(frozen=True)
class ShownBucket:
    title: str
    rows: list[ShownRow]
    references: list[ShownReference]


@dataclass(frozen=True)
class ShownAltTest:
    group: str
    winning_rate: str
    result: str
    alpha_llm: str = ""
    alpha_people: str = ""
    stands_in: str = ""


@dataclass(frozen=True)
class ShownDifference:
    """One simulator's test of the difference from people, as the page shows it."""

    group: str
    measure: str
    difference: str
    margin: str
    outcome: str
    at_count: str


@dataclass(frozen=True)
class ShownTask:
    task: str
    title: str
    headers: list[str]
    rows: list[ShownRow]
    buckets: list[ShownBucket]
    references: list[ShownReference]
    report: TaskReport
    figure: Figure | None
    alt_tests: list[ShownAltTest]
    labelled_by: str
    differences: list[ShownDifference]


def _shown_cell(cell: Cell) -> ShownCell:
    if cell.value is None:
        value = "—"
    elif cell.measure in COUNTS:
        value = f"{cell.value:.0f}"
    else:
        value = f"{cell.value:.3f}"
    ci = f"[{cell.ci[0]:.3f}, {cell.ci[1]:.3f}]" if cell.ci is not None else ""
    warning = "; ".join(
        shown(note)
        for note in cell.notes
        if isinstance(note, Phrase) and note.msgid == LOW_COVERAGE_MSGID
    )
    return ShownCell(value, ci, "; ".join(shown(note) for note in cell.notes), warning)


def _shown_rows(rows: tuple[GroupRow, ...]) -> list[ShownRow]:
    return [
        ShownRow(
            row.group,
            row.group == Answer.PEOPLE_GROUP,
            row.n_answers,
            [_shown_cell(cell) for cell in row.cells],
        )
        for row in rows
    ]


def _shown_references(references: tuple[Reference, ...]) -> list[ShownReference]:
    return [
        (shown(ref.group), str(MEASURE_LABELS[ref.measure]), ref.value, shown(ref.source))
        for ref in references
    ]


def _with_ci(value: float | None, ci: tuple[float, float] | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}" + ("" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]")


def _shown_alt_test(cell: AltTestCell) -> ShownAltTest:
    alphas = {
        "alpha_llm": _with_ci(cell.alpha_llm, cell.alpha_llm_ci),
        "alpha_people": _with_ci(cell.alpha_people, cell.alpha_people_ci),
        "stands_in": ("—" if cell.rule is None else _("yes") if cell.rule.stands_in else _("no")),
    }
    if cell.passed is None or cell.winning_rate is None:
        result = _("not available: %(note)s") % {"note": cell.note}
        return ShownAltTest(cell.group, "—", result, **alphas)
    result = _("passes") if cell.passed else _("fails")
    return ShownAltTest(cell.group, f"{cell.winning_rate:.3f}", result, **alphas)


OUTCOMES = {
    "equivalent": gettext_lazy("equivalent within the margin"),
    "different": gettext_lazy("different by more than the margin"),
    "inconclusive": gettext_lazy("not shown equivalent"),
}


def _shown_difference(verdict: Verdict) -> ShownDifference:
    test = verdict.difference
    if test.difference is None or test.ci is None or test.outcome is None:
        difference, outcome = "—", _("no test: a value or an interval is missing")
    else:
        low, high = test.ci
        difference = f"{test.difference:+.3f} [{low:+.3f}, {high:+.3f}]"
        outcome = str(OUTCOMES[test.outcome])
    found = test.at_count
    at_count = ""
    if found is not None:
        figures = {
            "mean": f"{found.mean:.3f}",
            "sd": f"{found.sd:.3f}",
            "low": f"{found.low:.3f}",
            "high": f"{found.high:.3f}",
            "count": found.count,
            "repeats": found.repeats,
        }
        at_count = (
            _(
                "people: %(mean)s (s.d. %(sd)s; %(low)s to %(high)s) at %(count)d answers, "
                "%(repeats)d subsamples"
            )
            if test.subsampled == "people"
            else _(
                "simulator: %(mean)s (s.d. %(sd)s; %(low)s to %(high)s) at %(count)d answers, "
                "%(repeats)d subsamples"
            )
        ) % figures
    return ShownDifference(
        verdict.group,
        str(MEASURE_LABELS[test.measure]),
        difference,
        f"±{test.margin:g}",
        outcome,
        at_count,
    )


def _labelled_by(task: TaskReport) -> str:
    if task.task != "open_pref":
        return ""
    if task.labeller:
        return _(
            "Aspects labelled by %(model)s, with one fixed prompt, for every group's reviews."
        ) % {"model": task.labeller}
    return _(
        "Aspects labelled by each responder: people in the workspace, each simulator in its "
        "own answer."
    )


def shown_task(task: TaskReport) -> ShownTask:
    return ShownTask(
        task.task,
        str(TASK_TITLES[task.task]),
        [str(MEASURE_LABELS[measure]) for measure in task.measures],
        _shown_rows(task.rows),
        [
            ShownBucket(
                str(BUCKET_LABELS[name]),
                _shown_rows(rows),
                _shown_references(BUCKET_REFERENCES.get(name, ())),
            )
            for name, rows in task.buckets
        ],
        _shown_references(task.references),
        task,
        measure_figure(
            f"figure-{task.task}",
            str(MEASURE_LABELS[MAIN_MEASURE[task.task]]),
            MAIN_MEASURE[task.task],
            task.rows,
            task.references,
            str(_("people")),
        ),
        [_shown_alt_test(cell) for cell in task.alt_tests],
        _labelled_by(task),
        [_shown_difference(verdict) for verdict in task.verdicts],
    )


def report_context(study: Study) -> dict[str, Any]:
    return {"study": study, "tasks": [shown_task(task) for task in study_report(study)]}
