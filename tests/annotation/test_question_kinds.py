"""Free-text, yes/no and A/B-or-neither questions about prompt items, from rubric to exports."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation

from annotation.imports.llm_scores import _ScoreChecker
from annotation.llm_evaluator.job import _rubric_dimensions
from annotation.models import Assignment, Campaign, Dimension, Response, Rubric, Transcript
from annotation.report import compute, workbook
from annotation.report.scores import long_scores
from annotation.rubrics import RubricFileError, check_rubric_data, load_rubric
from tests.annotation.conftest import person

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def level(value: int, en: str, zh: str) -> dict[str, Any]:
    return {
        "value": value,
        "label_en": en,
        "label_zh": zh,
        "description_en": en,
        "description_zh": zh,
    }


def text_question(key: str, **extra: Any) -> dict[str, Any]:
    return {
        "key": key,
        "name_en": f"{key} name",
        "name_zh": f"{key} 名称",
        "question_en": f"Write your {key}.",
        "question_zh": f"写下你的{key}。",
        "kind": "text",
        **extra,
    }


RUBRIC = {
    "key": "kinds",
    "name_en": "Question kinds",
    "name_zh": "问题类型",
    "dimensions": [
        text_question("films", max_chars=60),
        text_question("note", required=False),
        {
            "key": "watch",
            "name_en": "Would watch",
            "name_zh": "愿意看",
            "question_en": "Would you watch it?",
            "question_zh": "你会看吗？",
            "kind": "binary",
            "scale": [0, 1],
            "level_of_measurement": "nominal",
            "levels": [level(0, "No", "否"), level(1, "Yes", "是")],
        },
        {
            "key": "choice",
            "name_en": "Better recommendation",
            "name_zh": "更好的推荐",
            "question_en": "Which would you accept?",
            "question_zh": "你会接受哪一个？",
            "kind": "pairwise",
            "scale": [0, 2],
            "level_of_measurement": "nominal",
            "levels": [level(0, "A", "A"), level(1, "Neither", "都不"), level(2, "B", "B")],
        },
    ],
}


@pytest.fixture
def kinds_rubric(db: None) -> Rubric:
    return load_rubric(RUBRIC)[0]


@pytest.fixture
def study(kinds_rubric: Rubric) -> Campaign:
    campaign = Campaign.objects.create(
        name="Kinds", rubric=kinds_rubric, annotations_per_item=2, item_order="import"
    )
    Transcript.objects.create(
        campaign=campaign,
        external_id="p1",
        kind=Transcript.Kind.PROMPT,
        prompt="PROMPT-TEXT: name films you would talk about.",
        prompt_items=["Alien (1979)", "Heat (1995)"],
        position=0,
    )
    Transcript.objects.create(
        campaign=campaign,
        external_id="c1",
        kind=Transcript.Kind.PAIRWISE,
        prompt="I want a heist film.",
        response_a={"text": "LEFT-OR-RIGHT-A: Heat (1995)."},
        response_b={"text": "LEFT-OR-RIGHT-B: Up (2009)."},
        position=1,
    )
    return campaign


@pytest.fixture
def ann(db: None) -> User:
    return person("ann", "annotators")


@pytest.fixture
def ann_client(ann: User) -> Client:
    client = Client()
    client.force_login(ann)
    return client


def first_item(client: Client, campaign: Campaign) -> str:
    response = client.get(reverse("annotation:work", args=[campaign.pk]))
    assert response.status_code == 302
    return str(response["Location"])


def prompt_answers(**extra: Any) -> dict[str, Any]:
    return {
        "answer_films": "  Alien (1979) and Heat (1995)  ",
        "answer_note": "",
        "answer_watch": 1,
        "time_on_task_ms": 1000,
        **extra,
    }


class TestRubricFiles:
    def test_a_text_question_needs_no_scale_and_keeps_its_limit(self, kinds_rubric: Rubric) -> None:
        films = kinds_rubric.dimensions.get(key="films")
        note = kinds_rubric.dimensions.get(key="note")
        assert films.is_text and films.max_chars == 60 and films.required
        assert note.max_chars == 2000 and not note.required
        assert not films.levels.exists()
        assert list(kinds_rubric.dimensions.scored().values_list("key", flat=True)) == [
            "watch",
            "choice",
        ]

    @pytest.mark.parametrize(
        ("extra", "message"),
        [
            ({"scale": [1, 5]}, "dimensions[0].scale does not apply to a text dimension"),
            ({"max_chars": 0}, "dimensions[0].max_chars must be an integer from 1 to 20000"),
            ({"required": "yes"}, "dimensions[0].required must be true or false"),
        ],
    )
    def test_a_wrong_text_question_names_its_field(
        self, extra: dict[str, Any], message: str
    ) -> None:
        data = {**RUBRIC, "dimensions": [text_question("films", **extra)]}
        with pytest.raises(RubricFileError, match=message.replace("[", r"\[").replace("]", r"\]")):
            check_rubric_data(data)


class TestWorkspace:
    def test_a_prompt_item_shows_its_text_its_items_a_text_box_and_a_yes_no_question(
        self, ann_client: Client, study: Campaign
    ) -> None:
        with translation.override("en"):
            html = ann_client.get(first_item(ann_client, study)).content.decode()
        assert "PROMPT-TEXT: name films you would talk about." in html
        assert '<ul class="prompt-items"' in html and "<li>Heat (1995)</li>" in html
        assert 'class="chat transcript"' not in html
        assert '<textarea name="answer_films"' in html and 'maxlength="60"' in html
        assert "At most 60 characters." in html
        assert html.count("(optional)") == 1
        # The yes/no question reads as one: its two options say No and Yes.
        assert html.count('type="radio"') == 2
        assert "<strong>No</strong>" in html and "<strong>Yes</strong>" in html
        assert "Which would you accept?" not in html

    def test_the_prompt_and_the_questions_show_in_chinese(
        self, ann_client: Client, study: Campaign
    ) -> None:
        ann_client.cookies["django_language"] = "zh-hans"
        html = ann_client.get(first_item(ann_client, study)).content.decode()
        assert "写下你的films。" in html and "<strong>是</strong>" in html
        assert "（可选）" in html or "可选" in html

    def test_a_pairwise_prompt_offers_neither_and_shows_the_prompt(
        self, ann_client: Client, study: Campaign
    ) -> None:
        p1 = study.transcripts.get(external_id="p1")
        queue_skip(ann_client, study, p1)
        with translation.override("en"):
            html = ann_client.get(first_item(ann_client, study)).content.decode()
        assert "I want a heist film." in html
        assert "<strong>Neither</strong>" in html and html.count('type="radio"') == 3
        assert "textarea" not in html.split('id="answer-form"')[1].split("</form>")[0]


def queue_skip(client: Client, campaign: Campaign, transcript: Transcript) -> None:
    client.get(reverse("annotation:work", args=[campaign.pk]))
    client.post(reverse("annotation:skip", args=[campaign.pk, transcript.pk]))


class TestSubmitting:
    def test_a_text_answer_is_stored_as_text_with_value_zero(
        self, ann_client: Client, study: Campaign
    ) -> None:
        response = ann_client.post(first_item(ann_client, study), prompt_answers(), headers=HTMX)
        assert response.status_code == 200
        stored = {r.dimension.key: r for r in Response.objects.select_related("dimension")}
        assert stored["films"].text == "Alien (1979) and Heat (1995)"
        assert stored["films"].value == 0
        assert stored["note"].text == ""
        assert stored["watch"].value == 1 and stored["watch"].text == ""

    @pytest.mark.parametrize(
        ("films", "error"),
        [
            ("", "Write an answer."),
            ("x" * 61, "Ensure this value has at most 60 characters (it has 61)."),
            ("Alien\x00", "it contains a NUL character"),
        ],
    )
    def test_a_missing_too_long_or_unstorable_text_is_refused_and_nothing_is_stored(
        self, ann_client: Client, study: Campaign, films: str, error: str
    ) -> None:
        with translation.override("en"):
            response = ann_client.post(
                first_item(ann_client, study), prompt_answers(answer_films=films), headers=HTMX
            )
        html = response.content.decode()
        assert '<fieldset class="question has-error" id="q-films"' in html
        assert error in html
        assert not Response.objects.exists()

    def test_revising_shows_the_stored_text_again(
        self, ann_client: Client, study: Campaign
    ) -> None:
        url = first_item(ann_client, study)
        ann_client.post(url, prompt_answers(answer_note="A <b>bold</b> note"))
        html = ann_client.get(url).content.decode()
        assert "A &lt;b&gt;bold&lt;/b&gt; note</textarea>" in html
        ann_client.post(url, prompt_answers(answer_films="Only Alien"))
        assert Response.objects.get(dimension__key="films").text == "Only Alien"
        assert Response.objects.get(dimension__key="note").text == ""

    @pytest.mark.parametrize(("shown", "stored"), [(0, 2), (1, 1), (2, 0)])
    def test_neither_means_neither_whichever_side_each_response_was_shown_on(
        self, ann_client: Client, study: Campaign, shown: int, stored: int
    ) -> None:
        queue_skip(ann_client, study, study.transcripts.get(external_id="p1"))
        url = first_item(ann_client, study)
        Assignment.objects.filter(transcript__external_id="c1").update(swapped=True)
        ann_client.post(url, {"answer_choice": shown, "time_on_task_ms": 5})
        assert Response.objects.get(dimension__key="choice").value == stored


def submitted(study: Campaign, user: User, external_id: str, **answers: Any) -> None:
    transcript = study.transcripts.get(external_id=external_id)
    assignment = Assignment.objects.create(
        campaign=study,
        transcript=transcript,
        annotator=user,
        status=Assignment.Status.SUBMITTED,
        swapped=external_id == "c1",
    )
    for key, answer in answers.items():
        dimension = study.rubric.dimensions.get(key=key)
        text = answer if isinstance(answer, str) else ""
        Response.objects.create(
            assignment=assignment,
            transcript=transcript,
            dimension=dimension,
            value=0 if text else answer,
            text=text,
        )


@pytest.fixture
def answered(study: Campaign) -> Campaign:
    x, y = person("x", "annotators"), person("y", "annotators")
    submitted(study, x, "p1", films="=SUM(A1) Alien", watch=1)
    submitted(study, y, "p1", films="Heat", watch=0)
    submitted(study, x, "c1", choice=1)
    return study


class TestReportAndExports:
    def test_free_text_answers_stay_out_of_the_scores_and_the_report(
        self, answered: Campaign
    ) -> None:
        frame = long_scores(answered)
        assert set(frame["dimension"]) == {"watch", "choice"}
        result = compute.compute_report(answered, resamples=0)
        assert [d["key"] for d in result["dimensions"]] == ["watch", "choice"]

    def test_the_human_scores_export_holds_the_text_formula_safe_and_the_shown_order(
        self, answered: Campaign
    ) -> None:
        result = compute.compute_report(answered, resamples=0)
        text = workbook.csv_bytes(answered, result, "human-scores").decode("utf-8-sig")
        header, *rows = list(csv.reader(io.StringIO(text)))
        by = {(row[0], row[1], row[2]): row for row in rows}
        films = by[("p1", "x", "films")]
        assert films[header.index("text")] == "'=SUM(A1) Alien"
        assert films[header.index("score")] == ""
        assert by[("p1", "y", "watch")][header.index("score")] == "0"
        choice = by[("c1", "x", "choice")]
        assert choice[header.index("b_shown_left")] == "True"
        assert by[("p1", "y", "watch")][header.index("b_shown_left")] == ""

    def test_llm_scores_are_neither_asked_nor_taken_for_free_text_questions(
        self, study: Campaign
    ) -> None:
        assert [d.key for d in _rubric_dimensions(study)] == ["watch", "choice"]
        validator = _ScoreChecker(study, "gpt")
        with pytest.raises(Exception, match="is not a dimension of the rubric"):
            validator.check("p1", "films", 1, "", 1)
        assert Dimension.objects.filter(kind=Dimension.Kind.TEXT).count() == 2
