from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from annotation import queue
from annotation.models import Campaign, Dimension, Level, Rubric
from annotation.models.rubric import RubricFrozen
from annotation.rubrics import DEFAULT_RUBRIC_PATH, RubricFileError, load_rubric
from tests.annotation.conftest import person

pytestmark = pytest.mark.django_db

LIKERT = [
    "relevance",
    "quality",
    "manner",
    "human_likeness",
    "persuasiveness",
    "social_awareness",
    "overall",
    "user_satisfaction",
]


def concept_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DEFAULT_RUBRIC_PATH.read_text(encoding="utf-8"))
    return data


class TestTheConceptRubric:
    def test_it_has_eight_likert_questions_a_binary_and_a_pairwise_one(
        self, rubric: Rubric
    ) -> None:
        dimensions = list(rubric.dimensions.order_by("position"))
        assert [d.key for d in dimensions] == [
            *LIKERT,
            "acceptance_follows_preferences",
            "better_response",
        ]
        for dimension in dimensions[:8]:
            assert (dimension.kind, dimension.scale_min, dimension.scale_max) == ("likert", 1, 5)
            assert dimension.level_of_measurement == "ordinal"
        binary, pair = dimensions[8:]
        assert (binary.kind, binary.scale_min, binary.scale_max) == ("binary", 0, 1)
        assert (binary.level_of_measurement, binary.condition) == ("nominal", "accepted")
        assert (pair.kind, pair.level_of_measurement) == ("pairwise", "nominal")

    def test_every_level_is_described_in_both_languages(self, rubric: Rubric) -> None:
        for dimension in rubric.dimensions.all():
            levels = list(dimension.levels.order_by("value"))
            assert [lv.value for lv in levels] == list(
                range(dimension.scale_min, dimension.scale_max + 1)
            )
            for level in levels:
                assert len(level.description_en) > 10 and len(level.description_zh) > 3
            assert dimension.question_zh and dimension.name_zh

    def test_loading_it_again_changes_nothing(self, rubric: Rubric) -> None:
        again, created = load_rubric(concept_data())
        assert (again, created) == (rubric, False)
        assert Dimension.objects.count() == 10 and Level.objects.count() == 8 * 5 + 2 + 2


class TestRubricFiles:
    @pytest.mark.parametrize(
        ("change", "message"),
        [
            (
                lambda d: d["dimensions"][0]["levels"].pop(),
                "dimensions[0].levels must describe every value from 1 to 5 once",
            ),
            (
                lambda d: d["dimensions"][1].update(kind="slider"),
                "dimensions[1].kind must be one of likert, binary, pairwise, text",
            ),
            (
                lambda d: d["dimensions"][2].update(scale=[5, 1]),
                "dimensions[2].scale must be [lowest, highest] integers, lowest first",
            ),
            (
                lambda d: d["dimensions"][3].update(key="relevance"),
                "dimension keys must be unique; repeated: relevance",
            ),
            (
                lambda d: d["dimensions"][0]["levels"][0].update(description_zh=""),
                "dimensions[0].levels[0].description_zh must be a non-empty string",
            ),
        ],
    )
    def test_a_bad_file_names_the_field(self, change: Any, message: str) -> None:
        data = copy.deepcopy(concept_data())
        change(data)
        with pytest.raises(RubricFileError) as error:
            load_rubric(data)
        assert str(error.value) == message
        assert not Rubric.objects.exists()

    def test_a_scale_must_run_from_low_to_high_in_the_database_too(self, rubric: Rubric) -> None:
        with pytest.raises(IntegrityError), transaction.atomic():
            Dimension.objects.filter(key="manner").update(scale_min=5, scale_max=1)


class TestFreezing:
    @pytest.fixture
    def annotated(self, campaign: Campaign) -> Campaign:
        someone = person("someone", "annotators")
        held = queue.next_for(someone, campaign)
        assert held is not None
        manner = campaign.rubric.dimensions.get(key="manner")
        queue.submit(someone, held.transcript, [queue.Answer(manner, 3)], 100)
        return campaign

    def test_a_rubric_in_use_can_change_until_the_first_annotation(
        self, campaign: Campaign
    ) -> None:
        dimension = campaign.rubric.dimensions.get(key="manner")
        dimension.name_en = "Clarity"
        dimension.save()
        assert Dimension.objects.get(pk=dimension.pk).name_en == "Clarity"

    def test_once_annotated_its_dimensions_and_levels_cannot_change(
        self, annotated: Campaign
    ) -> None:
        assert annotated.rubric.is_frozen
        dimension = annotated.rubric.dimensions.get(key="manner")
        dimension.name_en = "Clarity"
        with pytest.raises(RubricFrozen):
            dimension.save()
        level = dimension.levels.get(value=1)
        level.description_en = "Changed."
        with pytest.raises(RubricFrozen):
            level.save()
        with pytest.raises(RubricFrozen):
            annotated.rubric.dimensions.get(key="quality").delete()
        assert Dimension.objects.get(pk=dimension.pk).name_en == "Manner"

    def test_reloading_a_frozen_version_is_refused_but_a_new_version_loads(
        self, annotated: Campaign
    ) -> None:
        data = concept_data()
        with pytest.raises(RubricFrozen):
            load_rubric(data)
        data["version"] = 2
        newer, created = load_rubric(data)
        assert created and newer.version == 2 and not newer.is_frozen

    def test_a_campaign_with_annotations_keeps_its_rubric(self, annotated: Campaign) -> None:
        data = concept_data()
        data["version"] = 2
        newer, _ = load_rubric(data)
        annotated.rubric = newer
        with pytest.raises(RubricFrozen):
            annotated.save()
        assert Campaign.objects.get(pk=annotated.pk).rubric.version == 1

    def test_a_campaign_without_annotations_may_switch_rubric(self, campaign: Campaign) -> None:
        data = concept_data()
        data["version"] = 2
        newer, _ = load_rubric(data)
        campaign.rubric = newer
        campaign.save()
        assert Campaign.objects.get(pk=campaign.pk).rubric.version == 2
