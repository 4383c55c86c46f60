"""The coordinator's agreement report page, its computation, and its exports.

Figures are inline SVG drawn on the server from the report's numbers: a scatter of the human
mean against the LLM's score per dimension (jittered, so that equal scores do not hide one
another), a heatmap of α by dimension and system, and the distribution of human and LLM scores.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRefresh

from annotation import report
from annotation.models import Campaign
from evalsite.http import HtmxHttpRequest
from evalsite.models import Job
from evalsite.roles import coordinator_required

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
# Half the width of the jitter, in scale points: wide enough to separate equal scores, narrow
# enough that a point never looks like a neighbouring value.
JITTER = 0.15
PERSONA_LABELS = {
    "persona_emotion": gettext_lazy("Persona emotion"),
    "persona_age_group": gettext_lazy("Persona age group"),
}


# Figures -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    css: str = "grid"


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float
    css: str
    fill: str
    label: str


@dataclass(frozen=True)
class Point:
    x: float
    y: float


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    anchor: str = "middle"
    fill: str = "#333"
    vertical: bool = False


@dataclass
class Figure:
    """An SVG figure: its accessible title and description, and what to draw."""

    dom_id: str
    kind: str
    title: str
    description: str
    width: float
    height: float
    lines: list[Line] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)


@dataclass(frozen=True)
class _Frame:
    """The plotting area of a figure and the value range of its axes."""

    left: float
    top: float
    width: float
    height: float
    low: float
    high: float

    def x(self, value: float) -> float:
        return round(self.left + (value - self.low) / (self.high - self.low) * self.width, 1)

    def y(self, value: float) -> float:
        return round(
            self.top + self.height - (value - self.low) / (self.high - self.low) * self.height, 1
        )


def scatter_figure(
    spec: dict[str, Any], scatter: dict[str, Any], evaluator: str, seed: int, position: int
) -> Figure:
    """Human mean (x) against the LLM's score (y) for each item, with the diagonal y = x."""
    low, high = spec["scale"]
    area = _Frame(36, 12, 196, 196, low - 0.5, high + 0.5)
    shown, total = len(scatter["points"]), scatter["total"]
    description = _(
        "%(shown)d of %(total)d items; each point is one item, the dashed line marks equal scores."
    ) % {"shown": shown, "total": total}
    figure = Figure(
        dom_id=f"scatter-{spec['key']}",
        kind="scatter",
        title=_("%(dimension)s: human mean against %(evaluator)s")
        % {"dimension": spec.get("name", spec["key"]), "evaluator": evaluator},
        description=description,
        width=240,
        height=248,
    )
    for value in report.scale_points(spec):
        figure.lines.append(Line(area.x(value), area.top, area.x(value), area.top + area.height))
        figure.lines.append(Line(area.left, area.y(value), area.left + area.width, area.y(value)))
        figure.texts.append(Text(area.x(value), area.top + area.height + 14, f"{value}"))
        figure.texts.append(Text(area.left - 6, area.y(value) + 4, f"{value}", anchor="end"))
    figure.lines.append(Line(area.x(low), area.y(low), area.x(high), area.y(high), css="diagonal"))
    figure.texts.append(Text(area.left + area.width / 2, 246, _("human mean")))
    figure.texts.append(Text(10, area.top + area.height / 2, evaluator, vertical=True))
    jitter = np.random.default_rng([seed, position]).uniform(-JITTER, JITTER, size=(shown, 2))
    for (_item, mean, llm), (dx, dy) in zip(scatter["points"], jitter, strict=True):
        figure.points.append(Point(area.x(mean + dx), area.y(llm + dy)))
    return figure


def alpha_colour(alpha: float | None) -> str:
    """White at α = 0, deepening to blue at 1 and to red below 0; grey when undefined."""
    if alpha is None:
        return "#e5e7eb"
    strength = min(1.0, abs(alpha))
    target = (37, 99, 235) if alpha >= 0 else (220, 38, 38)
    red, green, blue = (round(255 + (part - 255) * strength) for part in target)
    return f"#{red:02x}{green:02x}{blue:02x}"


def _system_label(value: str) -> str:
    return value or _("(none)")


def heatmap_figure(result: dict[str, Any], evaluation: dict[str, Any]) -> Figure | None:
    """α (humans with the LLM, or among humans without one) by dimension and system."""
    if "system" not in result["breakdowns"]:
        return None
    rows: list[tuple[str, dict[str, Any] | None]] = []
    if evaluation["pooled"] is not None:
        rows.append((report.POOLED, evaluation["pooled"]))
    rows.extend(evaluation["dimensions"].items())
    names = _names(result)
    systems = sorted(
        {system for _name, block in rows for system in report.lookup(block, ("by", "system")) or {}}
    )
    if not systems:
        return None
    which = "humans" if evaluation["evaluator"] is None else "humans_plus_llm"
    # About 6.2 pixels per character of the 11-pixel labels.
    longest = max(len(names[key]) for key, _block in rows)
    cell_width, cell_height, left, top = 76, 28, 16 + round(6.2 * longest), 34
    figure = Figure(
        dom_id="heatmap",
        kind="heatmap",
        title=_("Krippendorff's α by dimension and system"),
        description=(
            _("α among people") if which == "humans" else _("α of people with the LLM as a rater")
        )
        + " · "
        + _("%(rows)d dimensions × %(columns)d systems; grey where α has no value.")
        % {"rows": len(rows), "columns": len(systems)},
        width=left + cell_width * len(systems) + 4,
        height=top + cell_height * len(rows) + 4,
    )
    for column, system in enumerate(systems):
        figure.texts.append(
            Text(left + cell_width * (column + 0.5), top - 10, _system_label(system))
        )
    for row, (key, block) in enumerate(rows):
        name = names[key]
        y = top + cell_height * row
        figure.texts.append(Text(left - 8, y + cell_height / 2 + 4, name, anchor="end"))
        groups = report.lookup(block, ("by", "system")) or {}
        for column, system in enumerate(systems):
            alpha = report.lookup(groups.get(system), ("alpha", which))
            x = left + cell_width * column
            shown = "—" if alpha is None else f"{alpha:.2f}"
            figure.boxes.append(
                Box(
                    x,
                    y,
                    cell_width - 2,
                    cell_height - 2,
                    "cell",
                    alpha_colour(alpha),
                    f"{name} · {_system_label(system)}: α = {shown}",
                )
            )
            dark = alpha is not None and abs(alpha) > 0.6
            figure.texts.append(
                Text(
                    x + cell_width / 2,
                    y + cell_height / 2 + 4,
                    shown,
                    fill="#fff" if dark else "#333",
                )
            )
    return figure


def _point_label(points: Sequence[int], index: int) -> str:
    """A pairwise scale's lowest value means response A and its highest response B."""
    if index == 0:
        return "A"
    return "B" if index == len(points) - 1 else str(points[index])


def histogram_figure(
    spec: dict[str, Any], histogram: dict[str, Any], evaluator: str | None
) -> Figure:
    """The share of human scores and of the LLM's scores at each point of the scale."""
    points: list[int] = histogram["values"]
    human: list[int] = histogram["human"]
    machine: list[int] = histogram["llm"].get(evaluator, []) if evaluator else []
    series = [("human", _("people"), human)]
    if machine:
        series.append(("llm", evaluator or "", machine))
    left, top, width, height = 36, 12, 196, 120
    group = width / len(points)
    bar = (group - 8) / len(series)
    pairwise = spec["kind"] == "pairwise"
    figure = Figure(
        dom_id=f"histogram-{spec['key']}",
        kind="histogram",
        title=_("%(dimension)s: distribution of scores")
        % {"dimension": spec.get("name", spec["key"])},
        description=_("Share of %(human)d human scores") % {"human": sum(human)}
        + (
            _(" and of %(llm)d scores of %(evaluator)s")
            % {"llm": sum(machine), "evaluator": evaluator}
            if machine
            else ""
        )
        + _(" at each point of the scale."),
        width=240,
        height=168,
    )
    figure.lines.append(Line(left, top + height, left + width, top + height, css="axis"))
    for share in (0.5, 1.0):
        y = round(top + height - share * height, 1)
        figure.lines.append(Line(left, y, left + width, y))
        figure.texts.append(Text(left - 4, y + 4, f"{share:.0%}", anchor="end"))
    for index, value in enumerate(points):
        label = _point_label(points, index) if pairwise else str(value)
        x0 = left + group * index + 4
        figure.texts.append(Text(left + group * (index + 0.5), top + height + 14, label))
        for offset, (css, name, counts) in enumerate(series):
            total = sum(counts) or 1
            share = counts[index] / total
            figure.boxes.append(
                Box(
                    round(x0 + bar * offset, 1),
                    round(top + height - share * height, 1),
                    round(bar - 1, 1),
                    round(share * height, 1),
                    f"bar {css}",
                    "#2563eb" if css == "human" else "#f59e0b",
                    f"{label}: {share:.0%} ({counts[index]}) · {name}",
                )
            )
    figure.texts.append(Text(left + width / 2, 164, " / ".join(name for _c, name, _n in series)))
    return figure


# Page context ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    text: str
    n: int | None = None
    note: str = ""


def _number(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def estimate_cell(
    block: dict[str, Any] | None,
    path: Sequence[str],
    ci: Sequence[str] | None,
    size: str | None = None,
) -> Cell:
    """``0.53 [0.47, 0.58]`` with the number of items it rests on."""
    value = report.lookup(block, path)
    interval = report.lookup(block, ci) if ci else None
    text = _number(value)
    if value is not None and interval:
        text += f" [{interval[0]:.2f}, {interval[1]:.2f}]"
    notes = report.lookup(block, ("notes",)) or []
    return Cell(
        text,
        None if size is None else report.lookup(block, ("n", size)),
        " ".join(notes) if value is None else "",
    )


def _headline(block: dict[str, Any] | None) -> list[Cell]:
    return [estimate_cell(block, path, ci, size) for _name, path, ci, size in report.HEADLINE]


def _names(result: dict[str, Any]) -> dict[str, str]:
    chinese = (get_language() or "").lower().startswith("zh")
    names = {
        spec["key"]: spec["name_zh"] if chinese else spec["name_en"]
        for spec in result["dimensions"]
    }
    names[report.POOLED] = _("All (pooled)")
    return names


def _summary(result: dict[str, Any], evaluation: dict[str, Any]) -> list[dict[str, Any]]:
    names = _names(result)
    levels = report.levels_of(result)
    rows = []
    entries: list[tuple[str, dict[str, Any] | None]] = []
    if evaluation["pooled"] is not None:
        entries.append((report.POOLED, evaluation["pooled"]))
    entries.extend(evaluation["dimensions"].items())
    for key, block in entries:
        rows.append(
            {
                "key": key,
                "name": names[key],
                "level": levels[key],
                "n": report.lookup(block, ("n", "items")),
                "cells": _headline(block),
                "error": (block or {}).get("error", ""),
            }
        )
    return rows


def _breakdown(
    result: dict[str, Any], evaluation: dict[str, Any], column: str
) -> list[dict[str, Any]]:
    names = _names(result)
    entries: list[tuple[str, dict[str, Any] | None]] = []
    if evaluation["pooled"] is not None:
        entries.append((report.POOLED, evaluation["pooled"]))
    entries.extend(evaluation["dimensions"].items())
    rows = []
    for key, block in entries:
        for value, group in (report.lookup(block, ("by", column)) or {}).items():
            rows.append(
                {
                    "dimension": names[key],
                    "value": _system_label(value),
                    "n": report.lookup(group, ("n", "items")),
                    "cells": [*_headline(group), estimate_cell(group, ("mae",), ("mae_ci",))],
                }
            )
    return rows


def _pairwise(result: dict[str, Any], evaluation: dict[str, Any]) -> list[dict[str, Any]]:
    names = _names(result)
    rows = []
    for key, block in evaluation["pairwise"].items():
        rows.append(
            {
                "name": names[key],
                "block": block,
                "share_a": _percent(block["share_a"]),
                "share_b": _percent(block["share_b"]),
                "alpha_humans": estimate_cell(
                    block, ("alpha", "humans"), ("alpha_ci", "humans"), "alpha_humans"
                ),
                "alpha_humans_plus_llm": estimate_cell(
                    block,
                    ("alpha", "humans_plus_llm"),
                    ("alpha_ci", "humans_plus_llm"),
                    "alpha_humans_plus_llm",
                ),
                "majority": estimate_cell(
                    block, ("llm_majority_agreement",), ("llm_majority_agreement_ci",)
                ),
            }
        )
    return rows


def _percent(share: float | None) -> str:
    return "—" if share is None else f"{share:.0%}"


def _disagreements(
    campaign: Campaign, result: dict[str, Any], evaluation: dict[str, Any]
) -> list[dict[str, Any]]:
    names = _names(result)
    rows = []
    for row in evaluation["disagreements"]:
        link = (
            reverse("annotation:transcript_scores", args=[campaign.pk, row["transcript"]])
            if row.get("transcript")
            else None
        )
        rows.append(
            {
                **row,
                "name": names.get(row["dimension"], row["dimension"]),
                "url": link,
                "humans_text": ", ".join(f"{value:g}" for value in row["humans"]),
                "human_mean_text": _number(row["human_mean"]),
                "difference_text": f"{row['difference']:+.2f}",
            }
        )
    return rows


def report_context(
    campaign: Campaign, result: dict[str, Any], evaluator: str | None
) -> dict[str, Any]:
    """Everything the page shows of a computed report, for one chosen LLM evaluator."""
    evaluation = report.evaluation_of(result, evaluator)
    chosen = evaluation["evaluator"]
    names = _names(result)
    specs = {spec["key"]: {**spec, "name": names[spec["key"]]} for spec in result["dimensions"]}
    scatters = [
        scatter_figure(specs[key], points, chosen or "", result["seed"], position)
        for position, (key, points) in enumerate(evaluation["scatter"].items())
        if points["points"]
    ]
    histograms = [
        histogram_figure(spec, result["histograms"][key], chosen) for key, spec in specs.items()
    ]
    return {
        "result": result,
        "computed_at": datetime.fromisoformat(result["computed_at"]),
        "evaluation": evaluation,
        "evaluator": chosen,
        "verdict": report.verdict(result, evaluation),
        "summaries": [
            {
                "evaluator": each["evaluator"],
                "rows": _summary(result, each),
                "verdict": report.verdict(result, each),
            }
            for each in result["evaluations"]
        ],
        "pairwise": _pairwise(result, evaluation),
        "per_system": _breakdown(result, evaluation, "system"),
        "per_persona": [
            {
                "label": PERSONA_LABELS[column],
                "table_id": f"per-{column.replace('_', '-')}",
                "rows": _breakdown(result, evaluation, column),
            }
            for column in report.PERSONA_BREAKDOWNS
            if column in result["breakdowns"]
        ],
        "scatters": scatters,
        "heatmap": heatmap_figure(result, evaluation),
        "histograms": histograms,
        "disagreements": _disagreements(campaign, result, evaluation),
        "pooled_names": [names[key] for key in result["pooled_dimensions"]],
    }


# Views ----------------------------------------------------------------------------------------


def _campaign(campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)


@coordinator_required
def report_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    state = report.report_state(campaign)
    context: dict[str, Any] = {
        "campaign": campaign,
        "state": state,
        "tables": report.report_tables(),
    }
    if state.result is not None:
        context.update(report_context(campaign, state.result, request.GET.get("evaluator")))
    return render(request, "annotation/report/page.html", context)


@coordinator_required
@require_POST
def compute(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    report.start_report(campaign, request.user)
    return redirect("annotation_report:page", campaign.pk)


@coordinator_required
def progress(request: HtmxHttpRequest, campaign_id: int, job_id: int) -> HttpResponse:
    """The computing job's bar, polled by the page; when the job ends the page reloads."""
    job = get_object_or_404(Job, pk=job_id, kind=report.REPORT_KIND, params__campaign=campaign_id)
    if job.is_finished:
        if request.htmx:
            return HttpResponseClientRefresh()
        return redirect("annotation_report:page", campaign_id)
    return render(request, "jobs/_bar.html", {"event": job.as_event()})


def _fresh_result(request: HttpRequest, campaign: Campaign) -> dict[str, Any] | None:
    state = report.report_state(campaign)
    if state.result is None or not state.fresh:
        messages.warning(
            request,
            _("The report is out of date or not computed yet; compute it, then export it."),
        )
        return None
    return state.result


def _filename(campaign: Campaign) -> str:
    return f"{slugify(campaign.name) or f'campaign-{campaign.pk}'}-agreement"


@coordinator_required
def workbook(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    result = _fresh_result(request, campaign)
    if result is None:
        return redirect("annotation_report:page", campaign.pk)
    buffer = io.BytesIO()
    report.write_report_workbook(buffer, campaign, result)
    response = HttpResponse(buffer.getvalue(), content_type=XLSX)
    response["Content-Disposition"] = f'attachment; filename="{_filename(campaign)}.xlsx"'
    return response


@coordinator_required
def table_csv(request: HttpRequest, campaign_id: int, table: str) -> HttpResponse:
    campaign = _campaign(campaign_id)
    if table not in report.table_slugs():
        raise Http404(f"the report has no table {table!r}")
    result = _fresh_result(request, campaign)
    if result is None:
        return redirect("annotation_report:page", campaign.pk)
    response = HttpResponse(
        report.csv_bytes(campaign, result, table), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{_filename(campaign)}-{table}.csv"'
    return response
