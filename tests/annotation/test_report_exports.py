"""The agreement report as a workbook, as CSV files, and from the export_report command."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation
from openpyxl import load_workbook
from openpyxl.chart import BarChart, ScatterChart

from annotation.models import Campaign, LLMScore
from annotation.report import cache, compute, dimensions, workbook
from evalsite import roles
from evalsite.models import Job
from evalsite.spreadsheets import Sheet
from tests.annotation.conftest import dialogue, person
from tests.annotation.test_report import answer, build_small, client_of, machine

pytestmark = pytest.mark.django_db

SHEETS = [
    "About",
    "Summary",
    "Per dimension",
    "Per system",
    "Per persona",
    "Alt-test",
    "Pairwise",
    "Human scores",
    "LLM scores",
    "Disagreements",
]
FORMULA = '=HYPERLINK("http://example.org","click")'


@pytest.fixture(autouse=True)
def no_concept_sheet(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CONCEPT sheet comes from another module; these tests do not depend on it."""
    monkeypatch.setattr(workbook, "report_tables", lambda: list(workbook.TABLES))


@pytest.fixture
def coordinator_client(db: None) -> Client:
    return client_of("cora", roles.COORDINATORS)


@pytest.fixture
def small(campaign_factory: Callable[..., Campaign]) -> Campaign:
    return build_small(campaign_factory)


@pytest.fixture
def risky(campaign_factory: Callable[..., Campaign]) -> Campaign:
    """One dialogue whose rationales look like formulas; gpt scores manner one below people."""
    campaign = campaign_factory(name="Risky", rows=[dialogue("e1"), dialogue("e2")])
    e1, e2 = campaign.transcripts.order_by("position")
    x, y = person("x", "annotators"), person("y", "annotators")
    answer(x, e1, {"manner": 4}, rationale="+1 clear")
    answer(y, e1, {"manner": 4}, rationale="@y agrees")
    answer(x, e2, {"manner": 2})
    answer(y, e2, {"manner": 2})
    machine(e1, "gpt", {"manner": 3}, rationale=FORMULA)
    machine(e2, "gpt", {"manner": 2}, rationale="-1 is bad")
    return campaign


def workbook_of(campaign: Campaign, result: dict[str, Any]) -> Any:
    buffer = io.BytesIO()
    workbook.write_report_workbook(buffer, campaign, result)
    buffer.seek(0)
    return load_workbook(buffer)


def header_and_rows(sheet: Any) -> tuple[list[Any], list[list[Any]]]:
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    return rows[0], rows[1:]


def csv_rows(campaign: Campaign, result: dict[str, Any], slug: str) -> list[list[str]]:
    text = workbook.csv_bytes(campaign, result, slug).decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text)))


def test_the_workbook_has_every_sheet_with_native_charts(small: Campaign) -> None:
    result = compute.compute_report(small, resamples=0)
    book = workbook_of(small, result)
    assert book.sheetnames == SHEETS
    summary_charts = book["Summary"]._charts
    assert len(summary_charts) == 1 and isinstance(summary_charts[0], BarChart)
    scatter = book["Disagreements"]._charts
    assert len(scatter) == 1 and isinstance(scatter[0], ScatterChart)


def test_the_summary_sheet_holds_the_headline_figures_and_the_verdict(small: Campaign) -> None:
    result = compute.compute_report(small, resamples=0)
    with translation.override("en"):
        header, rows = header_and_rows(workbook_of(small, result)["Summary"])
    by_dimension = {row[header.index("dimension")]: row for row in rows}
    assert list(by_dimension) == [
        dimensions.POOLED,
        "quality",
        "manner",
        "acceptance_follows_preferences",
    ]
    acceptance = by_dimension["acceptance_follows_preferences"]
    assert acceptance[header.index("alpha_humans")] == pytest.approx(4 / 9)
    assert acceptance[header.index("alpha_humans_plus_llm")] == pytest.approx(0.6)
    assert acceptance[header.index("alpha_humans_n")] == 3
    assert acceptance[header.index("level")] == "nominal"
    manner = by_dimension["manner"]
    assert manner[header.index("spearman_rho")] == pytest.approx(0.8)
    assert manner[header.index("spearman_rho_n")] == 4
    assert str(by_dimension[dimensions.POOLED][header.index("verdict_label")]).startswith(
        "Whether the LLM evaluator gpt can stand in for a human annotator cannot be tested over "
        "2 dimensions pooled: no human annotator has 30 items"
    )


def test_the_per_dimension_sheet_gives_each_rate_its_chance_levels(small: Campaign) -> None:
    result = compute.compute_report(small, resamples=0)
    header, *rows = csv_rows(small, result, "per-dimension")
    manner = next(row for row in rows if row[1] == "manner")
    # See test_report.test_each_agreement_rate_has_its_chance_levels for the hand working.
    assert float(manner[header.index("exact_agreement_chance_marginals")]) == pytest.approx(12 / 64)
    assert float(manner[header.index("within_one_chance_marginals")]) == pytest.approx(34 / 64)
    assert float(manner[header.index("exact_agreement_chance_uniform")]) == pytest.approx(0.2)
    assert manner[header.index("scale_points")] == "5"
    acceptance = next(row for row in rows if row[1] == "acceptance_follows_preferences")
    assert acceptance[header.index("within_one_chance_uniform")] == ""


def test_the_breakdown_and_pairwise_sheets_hold_their_groups(small: Campaign) -> None:
    result = compute.compute_report(small, resamples=0)
    book = workbook_of(small, result)
    header, rows = header_and_rows(book["Per system"])
    manner = {row[2]: row for row in rows if row[1] == "manner"}
    assert set(manner) == {"kbrd", "unicrs"}
    assert manner["kbrd"][header.index("mae")] == pytest.approx(0.25)
    header, rows = header_and_rows(book["Per persona"])
    attributes = {(row[2], row[3]) for row in rows if row[1] == "manner"}
    assert attributes == {
        ("persona_emotion", "Curiosity"),
        ("persona_emotion", "Trust"),
        ("persona_age_group", "Adults"),
        ("persona_age_group", "Teens"),
    }
    header, rows = header_and_rows(book["Pairwise"])
    (pairwise,) = rows
    assert pairwise[header.index("share_a")] == pytest.approx(3 / 7)
    assert pairwise[header.index("llm_majority_agreement")] == pytest.approx(0.5)


def test_the_score_sheets_hold_every_score_with_its_rationale(small: Campaign) -> None:
    result = compute.compute_report(small, resamples=0)
    book = workbook_of(small, result)
    header, rows = header_and_rows(book["Human scores"])
    # 4 dialogues × 2 people × 3 dimensions, less t4's two acceptance answers, + 7 votes.
    assert len(rows) == 4 * 2 * 3 - 2 + 7
    header, rows = header_and_rows(book["LLM scores"])
    t2_manner = next(row for row in rows if row[0] == "t2" and row[2] == "manner")
    assert t2_manner[header.index("score")] == 2
    assert t2_manner[header.index("rationale")] == "gpt on t2"
    assert t2_manner[header.index("system")] == "kbrd"


def test_the_score_sheets_are_streamed_from_the_database(small: Campaign) -> None:
    assert isinstance(workbook.human_score_rows(small), Iterator)
    assert isinstance(workbook.llm_score_rows(small), Iterator)
    assert isinstance(workbook.disagreement_rows(small), Iterator)


def test_formula_like_text_stays_text_and_numbers_stay_numbers_in_the_workbook(
    risky: Campaign,
) -> None:
    result = compute.compute_report(risky, resamples=0)
    book = workbook_of(risky, result)
    header, _rows = header_and_rows(book["Disagreements"])
    e1 = next(row for row in book["Disagreements"].iter_rows(min_row=2) if row[2].value == "e1")
    rationale = e1[header.index("llm_rationale")]
    assert rationale.value == FORMULA and rationale.data_type == "s"
    difference = e1[header.index("difference")]
    assert difference.value == -1 and difference.data_type == "n"
    llm_header, _ = header_and_rows(book["LLM scores"])
    e2 = next(row for row in book["LLM scores"].iter_rows(min_row=2) if row[0].value == "e2")
    assert e2[llm_header.index("rationale")].value == "-1 is bad"
    assert e2[llm_header.index("rationale")].data_type == "s"
    human_header, _ = header_and_rows(book["Human scores"])
    texts = {
        row[human_header.index("rationale")].value: row[human_header.index("rationale")].data_type
        for row in book["Human scores"].iter_rows(min_row=2)
    }
    assert texts["+1 clear"] == "s" and texts["@y agrees"] == "s"


def test_formula_like_text_is_prefixed_and_numbers_stay_numbers_in_csv(
    risky: Campaign,
) -> None:
    result = compute.compute_report(risky, resamples=0)
    header, *rows = csv_rows(risky, result, "disagreements")
    e1 = next(row for row in rows if row[2] == "e1")
    assert e1[header.index("llm_rationale")] == "'" + FORMULA
    assert e1[header.index("difference")] == "-1.0"
    header, *rows = csv_rows(risky, result, "llm-scores")
    e2 = next(row for row in rows if row[0] == "e2")
    assert e2[header.index("rationale")] == "'-1 is bad"
    assert e2[header.index("score")] == "2.0"
    header, *rows = csv_rows(risky, result, "human-scores")
    assert {row[header.index("rationale")] for row in rows} >= {"'+1 clear", "'@y agrees"}


def test_a_concept_sheet_is_added_last_when_its_module_provides_one(
    small: Campaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    def concept_sheet(campaign: Campaign) -> Sheet:
        return Sheet("Scorecard", ["campaign", "acceptance_rate"], [[campaign.name, 0.5]])

    monkeypatch.undo()
    monkeypatch.setattr(workbook, "concept_sheet", concept_sheet)
    result = compute.compute_report(small, resamples=0)
    book = workbook_of(small, result)
    alignment = [
        "Versions",
        "Adjudications",
        "Calibration maps",
        "Confusion matrices",
        "Held-out figures",
    ]
    assert book.sheetnames == [*SHEETS, *alignment, "CONCEPT"]
    assert list(book["CONCEPT"].iter_rows(values_only=True))[1] == ("Small", 0.5)
    assert csv_rows(small, result, "concept") == [
        ["campaign", "acceptance_rate"],
        ["Small", "0.5"],
    ]


def test_the_concept_sheet_always_comes_last_from_the_concept_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.undo()
    assert [table.slug for table in workbook.report_tables()][-1] == "concept"


# Downloads ----------------------------------------------------------------------------------


def test_a_coordinator_downloads_the_workbook_and_every_csv(
    small: Campaign, coordinator_client: Client
) -> None:
    cache.run_report(small, resamples=0)
    response = coordinator_client.get(reverse("annotation_report:workbook", args=[small.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="small-agreement.xlsx"'
    assert load_workbook(io.BytesIO(response.content)).sheetnames == SHEETS
    for slug in workbook.table_slugs():
        url = reverse("annotation_report:csv", args=[small.pk, slug])
        download = coordinator_client.get(url)
        assert download.status_code == 200, slug
        assert download["Content-Type"] == "text/csv; charset=utf-8"
        assert download.content.startswith(b"\xef\xbb\xbf"), slug


def test_an_unknown_csv_table_is_not_found(small: Campaign, coordinator_client: Client) -> None:
    cache.run_report(small, resamples=0)
    url = reverse("annotation_report:csv", args=[small.pk, "secrets"])
    assert coordinator_client.get(url).status_code == 404


def test_exports_of_a_stale_report_send_the_coordinator_back_to_recompute(
    small: Campaign, coordinator_client: Client
) -> None:
    page = reverse("annotation_report:page", args=[small.pk])
    missing = coordinator_client.get(reverse("annotation_report:workbook", args=[small.pk]))
    assert missing.status_code == 302 and missing["Location"] == page
    cache.run_report(small, resamples=0)
    LLMScore.objects.filter(transcript__external_id="t1").delete()
    stale = coordinator_client.get(reverse("annotation_report:csv", args=[small.pk, "summary"]))
    assert stale.status_code == 302 and stale["Location"] == page
    html = coordinator_client.get(page).content.decode()
    assert "out of date or not computed yet" in html


# The command ----------------------------------------------------------------------------------


def test_the_command_computes_and_writes_the_workbook_and_csv_files(
    small: Campaign, tmp_path: Path
) -> None:
    out = tmp_path / "report.xlsx"
    folder = tmp_path / "tables"
    folder.mkdir()
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command(
        "export_report",
        "Small",
        "--out",
        str(out),
        "--csv-dir",
        str(folder),
        "--resamples",
        "10",
        stdout=stdout,
        stderr=stderr,
    )
    assert load_workbook(out).sheetnames == SHEETS
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        f"{slug}.csv" for slug in workbook.table_slugs()
    )
    assert "Agreement on manner with gpt" in stderr.getvalue()
    assert f"Wrote {out}" in stdout.getvalue()
    job = Job.objects.get(kind=cache.REPORT_KIND)
    assert job.params["resamples"] == 10 and cache.report_state(small).fresh


def test_the_command_reuses_a_fresh_report_and_finds_a_campaign_by_id(
    small: Campaign, tmp_path: Path
) -> None:
    cache.run_report(small, resamples=0)
    stderr = io.StringIO()
    call_command("export_report", str(small.pk), "--out", str(tmp_path / "r.xlsx"), stderr=stderr)
    assert Job.objects.filter(kind=cache.REPORT_KIND).count() == 1
    assert "Using the report computed" in stderr.getvalue()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["Nope", "--out", "{tmp}/r.xlsx"], "no annotation campaign named or numbered 'Nope'"),
        (["Small"], "--out report.xlsx, --csv-dir DIR, or both"),
        (["Small", "--out", "{tmp}/r.csv"], "must end in .xlsx"),
        (["Small", "--out", "{tmp}/missing/r.xlsx"], "does not exist; create it first"),
        (["Small", "--csv-dir", "{tmp}/missing"], "does not exist; create it first"),
        (["Small", "--out", "{tmp}/r.xlsx", "--resamples", "-1"], "cannot be negative"),
    ],
)
def test_the_command_explains_what_to_fix(
    small: Campaign, tmp_path: Path, arguments: list[str], message: str
) -> None:
    with pytest.raises(CommandError, match=re.escape(message)) as raised:
        call_command("export_report", *[part.format(tmp=tmp_path) for part in arguments])
    if "Nope" in arguments:
        assert f"{small.pk}: Small" in str(raised.value)
