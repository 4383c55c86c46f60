"""The safe writers: text stays text, numbers stay numbers, charts are native."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest
from django.test import override_settings
from django.utils import timezone

from evalsite.spreadsheets import (
    PERCENT_FORMAT,
    STATISTIC_FORMAT,
    About,
    BarChartSpec,
    CellValue,
    ScatterChartSpec,
    Sheet,
    export_time,
    number_format,
    write_csv,
    write_workbook,
)

RISKY_TEXT = ["=1+1", "+33 612", "-5 stars", "@SUM(A1)", '=HYPERLINK("http://x")', "#N/A"]


def written(*sheets: Sheet) -> openpyxl.Workbook:
    buffer = io.BytesIO()
    write_workbook(buffer, sheets)
    buffer.seek(0)
    return openpyxl.load_workbook(buffer)


def test_it_keeps_formula_like_text_as_text() -> None:
    workbook = written(Sheet("notes", ["text"], [[text] for text in RISKY_TEXT]))
    cells = [row[0] for row in workbook["notes"].iter_rows(min_row=2)]
    assert [cell.value for cell in cells] == RISKY_TEXT
    assert {cell.data_type for cell in cells} == {"s"}


def test_it_keeps_numbers_and_booleans_typed() -> None:
    workbook = written(Sheet("scores", ["n", "x", "ok"], [[3, -1.5, True], [0, 2.25, False]]))
    rows = list(workbook["scores"].iter_rows(min_row=2, values_only=True))
    assert rows == [(3, -1.5, True), (0, 2.25, False)]
    assert workbook["scores"]["B2"].data_type == "n"


def test_it_leaves_nan_and_none_cells_empty() -> None:
    workbook = written(Sheet("s", ["a", "b", "c", "d"], [["x", float("nan"), None, float("inf")]]))
    assert list(workbook["s"].iter_rows(min_row=2, values_only=True)) == [("x", None, None, None)]


def test_it_replaces_characters_that_xml_cannot_carry() -> None:
    workbook = written(Sheet("s", ["text"], [["bell\x07 here"]]))
    assert workbook["s"]["A2"].value == "bell\ufffd here"


def test_it_protects_the_header_too() -> None:
    workbook = written(Sheet("s", ["=cmd", "score"], []))
    assert workbook["s"]["A1"].value == "=cmd"
    assert workbook["s"]["A1"].data_type == "s"


def test_it_makes_sheet_titles_valid_and_unique() -> None:
    workbook = written(
        Sheet("Fluency: a/b", ["x"], []),
        Sheet("fluency: A/B", ["x"], []),
        Sheet("a" * 40, ["x"], []),
        Sheet("", ["x"], []),
    )
    assert workbook.sheetnames == ["Fluency_ a_b", "fluency_ A_B (2)", "a" * 31, "Sheet"]


def test_it_streams_rows_from_a_generator(tmp_path: Path) -> None:
    def rows() -> Iterator[list[CellValue]]:
        for number in range(500):
            yield [f"item {number}", number]

    path = tmp_path / "export.xlsx"
    write_workbook(path, [Sheet("items", ["item", "n"], rows())])
    sheet = openpyxl.load_workbook(path)["items"]
    assert sheet.max_row == 501
    assert sheet["B501"].value == 499


def test_it_adds_native_bar_and_scatter_charts() -> None:
    buffer = io.BytesIO()
    sheet = Sheet(
        "systems",
        ["system", "alpha", "mae", "llm"],
        [["kbrd", 0.61, 0.4, 3.0], ["chatgpt", 0.72, 0.3, 4.0]],
        charts=[
            BarChartSpec("Agreement by system", categories="system", values=["alpha", "mae"]),
            ScatterChartSpec("LLM vs MAE", x="llm", y="mae", anchor="H20"),
        ],
    )
    write_workbook(buffer, [sheet])
    parts = zipfile.ZipFile(buffer).namelist()
    assert sorted(name for name in parts if name.startswith("xl/charts/")) == [
        "xl/charts/chart1.xml",
        "xl/charts/chart2.xml",
    ]
    bar = zipfile.ZipFile(buffer).read("xl/charts/chart1.xml").decode()
    assert "<barChart>" in bar
    assert "'systems'!$B$2:$B$3" in bar
    assert "<scatterChart>" in zipfile.ZipFile(buffer).read("xl/charts/chart2.xml").decode()


def test_it_names_a_chart_column_that_does_not_exist(tmp_path: Path) -> None:
    sheet = Sheet("s", ["a"], [[1]], charts=[BarChartSpec("t", categories="a", values=["b"])])
    path = tmp_path / "export.xlsx"
    with pytest.raises(ValueError, match="chart 't': the sheet has no column 'b'"):
        write_workbook(path, [sheet])
    assert not path.exists()


def test_it_prefixes_formula_like_csv_text_with_an_apostrophe() -> None:
    stream = io.StringIO(newline="")
    write_csv(stream, ["text", "n"], [[text, -1] for text in RISKY_TEXT[:5]])
    rows = list(csv.reader(io.StringIO(stream.getvalue())))
    assert rows[0] == ["text", "n"]
    assert [row[0] for row in rows[1:]] == ["'" + text for text in RISKY_TEXT[:5]]
    assert {row[1] for row in rows[1:]} == {"-1"}


def test_it_writes_plain_csv_text_and_numbers_unchanged() -> None:
    stream = io.StringIO(newline="")
    write_csv(stream, ["=h"], [["plain, with comma", 2.5, None, float("nan")]])
    assert stream.getvalue() == '\'=h\r\n"plain, with comma",2.5,,\r\n'


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("completion_rate", PERCENT_FORMAT),
        ("completion_ci_low", PERCENT_FORMAT),
        ("share_a", PERCENT_FORMAT),
        ("exact_agreement_chance_uniform", PERCENT_FORMAT),
        ("alt_test_winning_rate", PERCENT_FORMAT),
        ("llm_majority_agreement_p", STATISTIC_FORMAT),
        ("alpha_humans", STATISTIC_FORMAT),
        ("pearson_r_low", STATISTIC_FORMAT),
        ("avg_turns", STATISTIC_FORMAT),
    ],
)
def test_shares_show_as_percentages_and_statistics_to_three_decimals(
    key: str, expected: str
) -> None:
    assert number_format(key) == expected


def test_a_float_keeps_its_exact_value_under_a_rounding_format() -> None:
    sheet = written(Sheet("s", ["alpha_humans", "n_items", "share_a"], [[1 / 3, 4, 0.125]]))["s"]
    alpha, count, share = sheet[2]
    assert alpha.value == pytest.approx(1 / 3, abs=1e-15)
    assert alpha.number_format == STATISTIC_FORMAT
    assert count.number_format == "General" and share.number_format == PERCENT_FORMAT


@override_settings(TIME_ZONE="Asia/Shanghai")
def test_times_are_written_at_the_site_offset_to_the_second() -> None:
    moment = dt.datetime(2026, 12, 2, 14, 13, 5, 123456, tzinfo=dt.UTC)
    assert export_time(moment) == "2026-12-02T22:13:05+08:00"
    assert export_time(None) == ""


def test_an_empty_sheet_gets_its_reason_under_the_header_and_no_chart() -> None:
    chart = BarChartSpec("c", categories="a", values=["b"])
    sheet = written(Sheet("s", ["a", "b"], [], [chart], empty="Nobody rated yet."))["s"]
    assert [cell.value for cell in sheet[1]] == ["a", "b"]
    assert sheet["A2"].value == "Nobody rated yet." and sheet["A2"].font.italic
    assert sheet._charts == []  # type: ignore[attr-defined]


def test_the_about_sheet_comes_first_with_a_glossary_of_every_column() -> None:
    buffer = io.BytesIO()
    sheets = [
        Sheet("Leaderboard", ["alias", "completion_rate"], [["S101", 0.5]]),
        Sheet("Classes", ["gold", "weather"], [], glossary={"weather": "Predicted as weather"}),
    ]
    before = timezone.now().replace(microsecond=0)
    write_workbook(buffer, sheets, About("Live campaign: demo", "cora", [("alias", "S101", "x")]))
    book = openpyxl.load_workbook(io.BytesIO(buffer.getvalue()))
    assert book.sheetnames == ["About", "Leaderboard", "Classes"]
    rows = [list(row) for row in book["About"].iter_rows(values_only=True)]
    fields = {row[0]: row[1] for row in rows if row[0]}
    assert fields["Subject"] == "Live campaign: demo" and fields["Exported by"] == "cora"
    assert dt.datetime.fromisoformat(str(fields["Exported at"])) >= before
    glossary = {(row[0], row[1]): row[2] for row in rows if row[0] in ("Leaderboard", "Classes")}
    assert glossary == {
        ("Leaderboard", "alias"): (
            "The system's code in this campaign, as judges know it (S and three digits)"
        ),
        ("Leaderboard", "completion_rate"): "Share of tasks completed, by the judges' ratings",
        ("Classes", "gold"): "The gold class of the row",
        ("Classes", "weather"): "Predicted as weather",
    }
    assert ["alias", "S101", "x"] in rows
