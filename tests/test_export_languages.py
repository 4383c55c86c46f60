"""Every export is data: the same file whatever the interface language of whoever downloads it.

Each export URL of every app is downloaded by the same coordinator from the same data, once in
English and once in Chinese. Every cell must be equal, except the columns whose key ends in
``_label`` (text for people, in the downloader's language), the About sheet (its words are the
reader's), and the line that says why an empty sheet is empty. An inventory test fails when an
app adds an export URL that this file does not download.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from openpyxl import load_workbook
from openpyxl.worksheet.worksheet import Worksheet

from annotation.models import Adjudication, AdjudicationReason
from annotation.models import Campaign as AnnotationCampaign
from annotation.report import cache
from evalsite.spreadsheets import ABOUT_TITLE, LABEL_SUFFIX, PERCENT_FORMAT, STATISTIC_FORMAT
from fidelity.models import Study
from intent.models import Submission, Team
from liveeval.models import ChatSession, DialogueSystem, Message, Rating
from tests.annotation.conftest import campaign_factory, rubric  # noqa: F401
from tests.annotation.test_alignment_pages import aligned  # noqa: F401
from tests.annotation.test_report import build_small
from tests.conftest import logged_in
from tests.fidelity.conftest import study  # noqa: F401
from tests.fidelity.test_report import answered  # noqa: F401
from tests.intent.conftest import participant, predictions_csv, team, track  # noqa: F401
from tests.liveeval.conftest import make_campaign, make_system, make_task

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "zh-hans")
SITE_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$")


@dataclass(frozen=True)
class Export:
    """One export URL: its name, its arguments, and the data it needs (a fixture)."""

    name: str
    data: str
    args: tuple[str, ...] = ()
    query: str = ""


EXPORTS = (
    Export("liveeval:campaign_export", "live", ("leaderboard", "csv")),
    Export("liveeval:campaign_export", "live", ("sessions", "csv")),
    Export("liveeval:campaign_export", "live", ("messages", "csv")),
    Export("liveeval:campaign_export", "live", ("ratings", "csv")),
    Export("liveeval:campaign_export", "live", ("all", "xlsx")),
    Export("liveeval:campaign_export", "live", ("ratings", "xlsx"), "?lang=zh"),
    Export("annotation_report:workbook", "report"),
    Export("annotation_report:csv", "report", ("summary",)),
    Export("annotation_report:csv", "report", ("per-dimension",)),
    Export("annotation_report:csv", "report", ("pairwise",)),
    Export("annotation_report:csv", "report", ("human-scores",)),
    Export("annotation_report:csv", "report", ("concept",)),
    Export("annotation_alignment:workbook", "alignment"),
    Export("annotation_alignment:csv", "alignment", ("adjudications",)),
    Export("annotation_alignment:csv", "alignment", ("calibration",)),
    Export("annotation_alignment:csv", "alignment", ("confusion",)),
    Export("annotation_alignment:csv", "alignment", ("held-out",)),
    Export("fidelity:report_csv", "fidelity"),
    Export("fidelity:report_xlsx", "fidelity"),
    Export("intent:submission_csv", "intent"),
    Export("intent:submission_xlsx", "intent"),
    Export("intent:test_inputs", "intent_track"),
)


@pytest.fixture
def live(coordinator: User) -> int:
    """Two systems, each judged once, with times, comments and messages."""
    campaign = make_campaign("Stable exports")
    campaign.tasks.add(task := make_task("flight-a"))
    judge = User.objects.create_user("jo")
    for slug, completed in (("alpha", True), ("beta", False)):
        system = make_system(DialogueSystem.Kind.BASELINE, slug, slug.upper())
        campaign.systems.add(system)
        session = ChatSession.objects.create(
            system=system,
            task=task,
            campaign=campaign,
            kind=ChatSession.Kind.JUDGED,
            user=judge,
            lang="zh",
            today=campaign.today,
            position=0,
            started_at=timezone.now(),
        )
        Message.objects.create(session=session, position=0, role="user", text="你好")
        Message.objects.create(session=session, position=1, role="system", text="ok")
        session.end(ChatSession.EndReason.USER)
        Rating.objects.create(
            session=session,
            completed=completed,
            satisfaction=1,
            fluency=0,
            guidance=1,
            comment="清楚",
        )
    return campaign.pk


@pytest.fixture
def report(campaign_factory: Callable[..., AnnotationCampaign]) -> int:  # noqa: F811
    campaign = build_small(campaign_factory)
    cache.run_report(campaign, resamples=0)
    return campaign.pk


@pytest.fixture
def alignment(aligned: AnnotationCampaign) -> int:  # noqa: F811
    """Two evaluator versions on held-out items, and one adjudicated score."""
    referee = User.objects.create_user("referee")
    transcript = aligned.transcripts.first()
    assert transcript is not None
    Adjudication.objects.create(
        transcript=transcript,
        dimension=aligned.rubric.dimensions.get(key="relevance"),
        score=2,
        reason=AdjudicationReason.objects.get(label_en="humans split"),
        note="意见不一",
        adjudicator=referee,
    )
    return aligned.pk


@pytest.fixture
def fidelity(answered: Study) -> int:  # noqa: F811
    return answered.pk


@pytest.fixture
def intent(team: Team, participant: User) -> int:  # noqa: F811
    client = logged_in(participant)
    client.post(
        reverse("intent:submit", args=[team.track.pk]),
        {"file": _upload("p.csv", predictions_csv(8))},
        follow=True,
    )
    return Submission.objects.get().pk


@pytest.fixture
def intent_track(team: Team) -> int:  # noqa: F811
    return team.track.pk


def _upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"))


def download(client: Client, url: str, language: str) -> bytes:
    client.cookies["django_language"] = language
    response = client.get(url)
    assert response.status_code == 200, (url, language, response.status_code)
    assert response["Content-Disposition"].startswith("attachment"), url
    return response.content


def is_empty_note(sheet: Worksheet) -> bool:
    """Whether the sheet's only row under the header is the italic line saying why it is
    empty."""
    if sheet.max_row != 2:
        return False
    cells = [cell for cell in sheet[2] if cell.value is not None]
    return len(cells) == 1 and cells[0].column == 1 and bool(cells[0].font.italic)


def masked(header: list[Any], rows: list[list[Any]]) -> list[list[Any]]:
    """The rows with every label column's cells left out."""
    keep = [i for i, name in enumerate(header) if not str(name).endswith(LABEL_SUFFIX)]
    return [[row[i] if i < len(row) else None for i in keep] for row in rows]


def csv_cells(body: bytes) -> tuple[list[str], list[list[Any]]]:
    assert body.startswith(b"\xef\xbb\xbf")
    header, *rows = csv.reader(io.StringIO(body.decode("utf-8-sig")))
    return header, masked(header, [list(row) for row in rows])


def workbook_cells(body: bytes) -> dict[str, tuple[list[Any], list[list[Any]]]]:
    book = load_workbook(io.BytesIO(body))
    assert book.sheetnames[0] == ABOUT_TITLE
    cells = {}
    for sheet in book.worksheets[1:]:
        header, *rows = ([*row] for row in sheet.iter_rows(values_only=True))
        cells[sheet.title] = (header, [] if is_empty_note(sheet) else masked(header, rows))
    return cells


def _url(export: Export, request: pytest.FixtureRequest) -> str:
    pk = request.getfixturevalue(export.data)
    return reverse(export.name, args=[pk, *export.args]) + export.query


@pytest.mark.parametrize(
    "export", EXPORTS, ids=[f"{e.name}:{'.'.join(e.args)}{e.query}" for e in EXPORTS]
)
def test_an_export_holds_the_same_cells_in_chinese_and_in_english(
    export: Export, coordinator: User, request: pytest.FixtureRequest
) -> None:
    url = _url(export, request)
    client = logged_in(coordinator)
    english, chinese = (download(client, url, language) for language in LANGUAGES)
    kind = url.split("?")[0].rsplit(".", 1)[-1]
    if kind == "json":
        assert json.loads(english) == json.loads(chinese) and json.loads(english)
        return
    if kind == "csv":
        en_header, en_rows = csv_cells(english)
        zh_header, zh_rows = csv_cells(chinese)
        assert en_header == zh_header
        assert en_rows == zh_rows
        # Rows to compare, so that equality is not vacuous.
        assert en_rows
        return
    en_sheets, zh_sheets = workbook_cells(english), workbook_cells(chinese)
    assert list(en_sheets) == list(zh_sheets)
    for title, (header, rows) in en_sheets.items():
        assert zh_sheets[title][0] == header, title
        assert zh_sheets[title][1] == rows, title
    assert any(rows for _, rows in en_sheets.values())


def _export_names(resolver: URLResolver, prefix: str = "") -> set[str]:
    names = set()
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            space = f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix
            names |= _export_names(pattern, space)
        elif isinstance(pattern, URLPattern) and pattern.name:
            route = str(pattern.pattern)
            if re.search(r"\.(csv|xlsx|json)$|\.<str:fmt>$", route):
                names.add(prefix + pattern.name)
    return names


def test_every_export_url_of_every_app_is_downloaded_in_both_languages() -> None:
    found = _export_names(get_resolver())
    assert found and found == {export.name for export in EXPORTS}


WORKBOOKS = [e for e in EXPORTS if "xlsx" in e.name or "workbook" in e.name or "xlsx" in e.args]


def _workbook(export: Export, user: User, request: pytest.FixtureRequest, language: str) -> Any:
    body = download(logged_in(user), _url(export, request), language)
    return load_workbook(io.BytesIO(body))


def _about(book: Any) -> list[list[Any]]:
    return [list(row) for row in book[ABOUT_TITLE].iter_rows(values_only=True)]


@pytest.mark.parametrize("export", WORKBOOKS, ids=[e.name for e in WORKBOOKS])
def test_every_column_of_every_workbook_has_a_meaning_in_chinese(
    export: Export, coordinator: User, request: pytest.FixtureRequest
) -> None:
    book = _workbook(export, coordinator, request, "zh-hans")
    about = _about(book)
    glossary = about[about.index(["工作表", "列", "含义"]) + 1 :]
    described = {(row[0], row[1]): row[2] for row in glossary if row[0] and row[2]}
    unexplained = [
        (sheet.title, cell.value)
        for sheet in book.worksheets[1:]
        for cell in sheet[1]
        if not re.search(r"[\u4e00-\u9fff]", described.get((sheet.title, cell.value)) or "")
    ]
    assert unexplained == [], unexplained


def test_the_about_sheet_says_what_when_who_and_which_version(
    coordinator: User, live: int, request: pytest.FixtureRequest
) -> None:
    book = _workbook(EXPORTS[4], coordinator, request, "zh-hans")
    assert book.sheetnames[0] == "About"
    fields = {row[0]: row[1] for row in _about(book) if row[0]}
    assert fields["主题"] == "实时活动：Stable exports"
    assert SITE_TIME.match(fields["导出时间"])
    assert fields["导出者"] == coordinator.username
    assert fields["软件"] == f"EvalSite {metadata.version('evalsite')}"
    codes = {row[1]: row[2] for row in _about(book) if row[0] == "alias" and row[1]}
    assert codes and all(re.fullmatch(r"S\d{3}", code) for code in codes)
    assert all(label == f"系统 {code[1:]}" for code, label in codes.items())


def test_data_sheets_have_a_styled_frozen_filtered_header_and_rounding_formats(
    coordinator: User, request: pytest.FixtureRequest
) -> None:
    book = _workbook(EXPORTS[4], coordinator, request, "en")
    sheet = book["Leaderboard"]
    header = [cell.value for cell in sheet[1]]
    assert all(cell.font.bold and cell.fill.fgColor.rgb.endswith("DDE4EE") for cell in sheet[1])
    assert sheet.freeze_panes == "A2"
    assert sheet.auto_filter.ref == f"A1:{sheet.cell(1, len(header)).column_letter}3"
    assert sheet.column_dimensions["A"].width >= 8
    row = dict(zip(header, sheet[2], strict=True))
    assert row["alias"].value.startswith("S") and row["alias_label"].value.startswith("System ")
    # The cell keeps the exact rate; only the format rounds what is shown.
    assert row["completion_rate"].number_format == PERCENT_FORMAT
    assert row["mean_satisfaction"].number_format == STATISTIC_FORMAT
    assert row["rank"].number_format == "General"


def test_times_are_iso_8601_at_the_site_offset(
    coordinator: User, request: pytest.FixtureRequest
) -> None:
    book = _workbook(EXPORTS[4], coordinator, request, "en")
    for title, columns in (
        ("Sessions", ("started_at", "ended_at")),
        ("Messages", ("created_at",)),
        ("Ratings", ("rated_at",)),
    ):
        rows = [list(row) for row in book[title].iter_rows(values_only=True)]
        for column in columns:
            index = rows[0].index(column)
            stamps = [row[index] for row in rows[1:]]
            assert stamps and all(SITE_TIME.match(stamp) for stamp in stamps), (title, stamps)


def test_an_empty_sheet_says_why_it_is_empty(coordinator: User) -> None:
    campaign = make_campaign("Nothing yet")
    url = reverse("liveeval:campaign_export", args=[campaign.pk, "all", "xlsx"])
    book = load_workbook(io.BytesIO(download(logged_in(coordinator), url, "zh-hans")))
    sheet = book["Ratings"]
    assert is_empty_note(sheet)
    assert sheet["A2"].value == "还没有评审者为本活动的会话评分。"
    assert sheet.freeze_panes == "A2" and sheet["A1"].value == "session"
