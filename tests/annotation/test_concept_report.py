"""The CONCEPT scorecard in the product: catalogs in the database, the scorecard of an imported
campaign checked by hand, its command, its page and its Excel sheet.

The campaign is the project's own Concept4CRS fixture (tests/annotation/data/concept4crs):

- kbrd/redial_eval/101 (Curiosity, Adults): not accepted; system turns 1–3 with the dialogue
  flag only on turn 2; names Solaris (1972).
- chatgpt/redial_eval/102 (Boredom, Teens): accepted at turn 5 (user turns 1, 3, 5), both
  flags on system turn 2; names and accepts Airplane! (1980); prefers comedy and parody.
- chatgpt/opendialkg_eval/201 (Delight, Seniors): accepted at turn 5, no flag ever true;
  names and accepts "Rebecca", which the opendialkg catalog does not hold.

The catalogs are tests/annotation/data/concept4crs_catalog: redial holds Solaris, Airplane!
(comedy, parody) and Moon; opendialkg holds Vertigo and Laura.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from annotation.concept.catalog_store import load_catalog, store_catalog
from annotation.concept.catalogs import CatalogContents, read_catalog_csv
from annotation.concept.scorecard import campaign_scorecard, gather_inputs
from annotation.concept.sheet import concept_sheet
from annotation.imports.formats import import_transcripts
from annotation.imports.problems import ImportFailed
from annotation.models import (
    Assignment,
    Campaign,
    Catalog,
    CatalogItem,
    Dimension,
    LLMScore,
    Response,
    Transcript,
)
from evalsite import roles
from evalsite.spreadsheets import write_workbook
from tests.annotation.conftest import (
    CONCEPT4CRS,
    CONCEPT4CRS_DUPLICATES,
    DATA,
    dialogue,
    person,
)

pytestmark = pytest.mark.django_db

CATALOGS = DATA / "concept4crs_catalog"
KBRD = "kbrd/redial_eval/101_2_profile0_attribute1"
CHATGPT_REDIAL = "chatgpt/redial_eval/102_3_profile1_attribute0"
CHATGPT_ODKG = "chatgpt/opendialkg_eval/201_1_profile2_attribute3"
# The keys the command's JSON promises for every row, besides the group columns.
CONTRACT = (
    "n",
    "acceptance_rate",
    "avg_turns_to_accept",
    "sr_rec@3",
    "sr_rec@5",
    "sr_rec@10",
    "sr_dialogue@3",
    "sr_dialogue@5",
    "sr_dialogue@10",
)


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def import_fixture_catalogs(*datasets: str) -> None:
    for dataset in datasets:
        run("import_catalog", dataset, "--concept4crs", str(CATALOGS), "--dataset", dataset)


def answer(user: User, transcript: Transcript, status: str, **values: int) -> None:
    assignment = Assignment.objects.create(
        campaign=transcript.campaign,
        transcript=transcript,
        annotator=user,
        status=status,
        submitted_at=timezone.now() if status == Assignment.Status.SUBMITTED else None,
    )
    for key, value in values.items():
        Response.objects.create(
            assignment=assignment,
            transcript=transcript,
            dimension=transcript.campaign.rubric.dimensions.get(key=key),
            value=value,
        )


@pytest.fixture
def imported() -> Campaign:
    """The fixture campaign with personas, both catalogs, answers from x and y (and a held,
    unsubmitted one from z) and one LLM evaluator's scores."""
    import_transcripts(
        CONCEPT4CRS, "C4", format="concept4crs", personas=CONCEPT4CRS / "personas.csv"
    )
    import_fixture_catalogs("redial", "opendialkg")
    campaign = Campaign.objects.get(name="C4")
    redial = campaign.transcripts.get(external_id=CHATGPT_REDIAL)
    odkg = campaign.transcripts.get(external_id=CHATGPT_ODKG)
    x, y, z = (person(name, roles.ANNOTATORS) for name in "xyz")
    submitted = Assignment.Status.SUBMITTED
    answer(x, redial, submitted, social_awareness=4, persuasiveness=3, manner=4, quality=3,
           relevance=5)  # fmt: skip
    answer(y, redial, submitted, social_awareness=5, persuasiveness=4, manner=4, quality=5,
           relevance=3)  # fmt: skip
    answer(z, redial, Assignment.Status.HELD, social_awareness=1)
    answer(x, odkg, submitted, social_awareness=2)
    for key, score in (("persuasiveness", 4.0), ("acceptance_follows_preferences", 0.0)):
        LLMScore.objects.create(
            transcript=redial,
            dimension=campaign.rubric.dimensions.get(key=key),
            evaluator="judge-llm",
            score=score,
        )
    return campaign


def cards_by_group(campaign: Campaign, by: tuple[str, ...]) -> dict[tuple[Any, ...], Any]:
    cards = campaign_scorecard(gather_inputs(campaign), by)
    return {tuple(card[name] for name in by): card for card in cards}


# The scorecard of the imported fixture ----------------------------------------------------------


def test_it_scores_the_imported_fixture_per_system_and_dataset(imported: Campaign) -> None:
    cards = cards_by_group(imported, ("system", "dataset"))
    assert list(cards) == [
        ("chatgpt", "opendialkg_eval"),
        ("chatgpt", "redial_eval"),
        ("kbrd", "redial_eval"),
    ]

    kbrd = cards[("kbrd", "redial_eval")]
    # Nobody accepted: AR = 0 / 1 and AT cannot be computed.
    assert (kbrd["n"], kbrd["acceptance_rate"], kbrd["avg_turns_to_accept"]) == (1, 0.0, None)
    # The dialogue flag first holds on system turn 2 (≤ 3, 5, 10); the recommender flag never.
    assert [kbrd[f"sr_dialogue@{k}"] for k in (3, 5, 10)] == [1.0, 1.0, 1.0]
    assert [kbrd[f"sr_rec@{k}"] for k in (3, 5, 10)] == [0.0, 0.0, 0.0]
    # Solaris (1972) is in the redial catalog: 0 of 1 named items do not exist.
    assert (kbrd["items_named"], kbrd["items_nonexistent"]) == (1, 0)
    assert kbrd["nonexistent_item_ratio"] == 0.0
    assert kbrd["deceptive_ratio_catalog"] is None and kbrd["sincerity_score"] is None

    redial = cards[("chatgpt", "redial_eval")]
    # Accepted at turn 5, the third user turn: AR = 1/1, AT = 3; both flags on system turn 2.
    assert (redial["acceptance_rate"], redial["avg_turns_to_accept"]) == (1.0, 3.0)
    assert [redial[f"sr_rec@{k}"] for k in (3, 5, 10)] == [1.0, 1.0, 1.0]
    # Airplane! (comedy, parody) holds both preferences: 0 of 1 judged acceptances deceive.
    assert (redial["deceptive_judged_catalog"], redial["deceptive_ratio_catalog"]) == (1, 0.0)
    assert redial["nonexistent_item_ratio"] == 0.0
    # Sincerity = 5 × (1 − (0 + 0) / 2) = 5; Quality = 5 × AR = 5.
    assert (redial["sincerity_score"], redial["quality_score"]) == (5.0, 5.0)
    # x and y submitted 4 and 5 (z's held 1 does not count): (4 + 5) / 2 = 4.5.
    assert redial["human_social_awareness"] == 4.5
    assert redial["human_persuasiveness"] == 3.5  # (3 + 4) / 2
    # Identity = persuasiveness × (1 − deceptive) = 3.5 × 1; Cooperation = mean of manner 4,
    # quality (3 + 5) / 2 = 4, relevance (5 + 3) / 2 = 4 and sincerity 5 = 17 / 4.
    assert redial["identity_score_human"] == 3.5
    assert redial["cooperation_score_human"] == 4.25
    # The evaluator answered 0 ("does not follow the preferences"): its ratio is 1 − 0.
    assert redial["deceptive_ratio_llm_judge-llm"] == 1.0
    assert redial["identity_score_llm_judge-llm"] == 4.0  # 4 × (1 − 0)
    assert redial["deceptive_ratio_human"] is None

    odkg = cards[("chatgpt", "opendialkg_eval")]
    # "Rebecca" is not in the opendialkg catalog: 1 of 1 named items does not exist, and the
    # accepted item cannot be judged against the preferences.
    assert (odkg["items_named"], odkg["items_nonexistent"]) == (1, 1)
    assert odkg["nonexistent_item_ratio"] == 1.0
    assert odkg["deceptive_ratio_catalog"] is None
    assert "no accepted item is in the catalog" in odkg["notes"]["deceptive_ratio_catalog"]
    assert [odkg[f"sr_dialogue@{k}"] for k in (3, 5, 10)] == [0.0, 0.0, 0.0]


def test_it_pools_a_system_and_coordinates_its_personas(imported: Campaign) -> None:
    chatgpt = cards_by_group(imported, ("system",))[("chatgpt",)]
    assert (chatgpt["n"], chatgpt["acceptance_rate"], chatgpt["avg_turns_to_accept"]) == (
        2,
        1.0,
        3.0,
    )
    # Airplane! exists and Rebecca does not: 1 / 2. Only Airplane! is judged, honest: 0 / 1.
    assert chatgpt["nonexistent_item_ratio"] == 0.5
    assert chatgpt["deceptive_ratio_catalog"] == 0.0
    # Sincerity = 5 × (1 − (0 + 0.5) / 2) = 3.75.
    assert chatgpt["sincerity_score"] == 3.75
    # Per-transcript human means 4.5 and 2, averaged: 3.25.
    assert chatgpt["human_social_awareness"] == 3.25
    emotion = chatgpt["coordination_human"]["persona_emotion"]
    assert emotion["groups"] == ["Boredom", "Delight"]
    # Quality is 5 for both groups: range 0. Social awareness 4.5 and 2: range 2.5 over the
    # mean 3.25 = 0.76923. Identity and Cooperation have no Delight value (no persuasiveness,
    # no sincerity), so they have no ratio, and coordination, which needs the ratio of all four
    # abilities, is null: (0 + 0.76923) / 2 = 0.38462 would be Quality and Social awareness only.
    assert emotion["group_means"]["social_awareness"] == {"Boredom": 4.5, "Delight": 2.0}
    assert emotion["measures"]["quality"] == 0.0
    assert emotion["measures"]["social_awareness"] == pytest.approx(2.5 / 3.25)
    assert emotion["measures"]["identity"] is None
    assert emotion["value"] is None
    assert chatgpt["coordination_score_human"] is None
    assert "identity has a value in fewer than two" in chatgpt["notes"]["coordination_score_human"]
    # The age groups split the same two transcripts (Teens, Seniors): the same value.
    assert chatgpt["coordination_score_human_age_group"] is None


def test_it_counts_duplicated_cells_present_and_dropped_at_import() -> None:
    import_transcripts(CONCEPT4CRS_DUPLICATES, "All", format="concept4crs")
    import_transcripts(CONCEPT4CRS_DUPLICATES, "Deduped", format="concept4crs", dedupe_cells=True)
    every = cards_by_group(Campaign.objects.get(name="All"), ("system", "dataset"))
    deduped = cards_by_group(Campaign.objects.get(name="Deduped"), ("system", "dataset"))
    counts = ("n", "duplicate_cells", "duplicate_cells_dropped")
    # chatgpt/redial_eval: dialogues 150, 300 and 1000 share profile1 × attribute0, 303 is
    # profile2: 4 transcripts of which 2 repeat a cell; deduplicated, 2 remain and 2 were dropped.
    assert [every[("chatgpt", "redial_eval")][key] for key in counts] == [4, 2, 0]
    assert [deduped[("chatgpt", "redial_eval")][key] for key in counts] == [2, 0, 2]
    assert every[("chatgpt", "redial_eval")]["notes"]["n"] == (
        "4 transcript(s); 2 repeat a persona × attribute cell already in the group (importing "
        "with --dedupe-cells keeps the lowest dialogue id of each), and 0 such repeat(s) were "
        "dropped at import"
    )
    assert "and 2 such repeat(s) were dropped" in deduped[("chatgpt", "redial_eval")]["notes"]["n"]
    # The same profile and attribute in another dataset or system is another cell.
    for group in (("chatgpt", "opendialkg_eval"), ("kbrd", "redial_eval")):
        assert [every[group][key] for key in counts] == [1, 0, 0]
        assert "n" not in every[group]["notes"]
    # Pooled over datasets, the cells stay apart: still 2 repeats for chatgpt.
    pooled = cards_by_group(Campaign.objects.get(name="All"), ("system",))
    assert pooled[("chatgpt",)]["duplicate_cells"] == 2

    _, err = run("concept_scorecard", "All")
    assert "import_transcripts --dedupe-cells keeps the lowest dialogue id" in err
    client = logged_in(person("c", roles.COORDINATORS))
    campaign = Campaign.objects.get(name="All")
    page = client.get(reverse("concept:scorecard", args=[campaign.pk])).content.decode()
    row = re.search(r'<tr data-measure="duplicate_cells">(.*?)</tr>', page, re.S)
    assert row is not None
    assert re.findall(r">(\d+)</a>", row[1]) == ["0", "2", "0"]


def test_a_dataset_without_a_catalog_has_no_nonexistent_ratio(imported: Campaign) -> None:
    Catalog.objects.filter(name="opendialkg").delete()
    inputs = gather_inputs(imported)
    assert inputs.datasets_without_catalog == ["opendialkg_eval"]
    cards = {card["dataset"]: card for card in campaign_scorecard(inputs, ("dataset",))}
    assert cards["opendialkg_eval"]["nonexistent_item_ratio"] is None
    assert cards["opendialkg_eval"]["nonexistent_item_reason"] == (
        "no item catalog for dataset 'opendialkg_eval'"
    )
    assert cards["redial_eval"]["nonexistent_item_ratio"] == 0.0


def test_it_gathers_only_dialogues_and_submitted_answers(imported: Campaign) -> None:
    inputs = gather_inputs(imported)
    assert sorted(row["external_id"] for row in inputs.rows) == sorted(
        [KBRD, CHATGPT_REDIAL, CHATGPT_ODKG]
    )
    assert inputs.human_scores[CHATGPT_REDIAL]["social_awareness"] == 4.5
    assert inputs.human_scores[CHATGPT_ODKG] == {"social_awareness": 2.0}
    assert inputs.llm_scores == {
        "judge-llm": {
            CHATGPT_REDIAL: {"persuasiveness": 4.0, "acceptance_follows_preferences": 0.0}
        }
    }
    assert inputs.sources == ["human", "llm_judge-llm"]
    assert inputs.catalog_names == {"redial_eval": "redial", "opendialkg_eval": "opendialkg"}


# Catalogs ---------------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_it_imports_a_csv_catalog_for_its_datasets(tmp_path: Path) -> None:
    path = write(
        tmp_path / "movies.csv",
        'id,name,year,attributes\nm1,Airplane!,1980,comedy|parody\nm2,"Heat, the film",,'
        "action| crime\n",
    )
    output, _ = run("import_catalog", "films", "--csv", str(path), "--serves", "redial,x_eval")
    assert "2 items and 0 other entities" in output
    stored = Catalog.objects.get(name="films")
    assert stored.datasets == ["redial", "x_eval"]
    items = list(stored.entries.order_by("item_id").values_list("item_id", "year", "attributes"))
    assert items == [("m1", 1980, ["comedy", "parody"]), ("m2", None, ["action", "crime"])]
    built = load_catalog(stored)
    found = built.find("Airplane!", 1981)
    assert found is not None and found.attributes == ("comedy", "parody")


def test_a_bad_csv_catalog_names_each_line_and_field_and_writes_nothing(tmp_path: Path) -> None:
    path = write(
        tmp_path / "movies.csv",
        "id,name,year,attributes\nm1,Airplane!,1980,comedy\n,Heat,95,\nm1,,,\n",
    )
    with pytest.raises(CommandError) as failure:
        run("import_catalog", "films", "--csv", str(path))
    assert str(failure.value).splitlines()[1:] == [
        "movies.csv line 3: id is required",
        "movies.csv line 3: year '95' is not a four-digit year",
        "movies.csv line 4: id 'm1' is repeated (first on line 2)",
        "movies.csv line 4: name is required",
    ]
    assert not Catalog.objects.exists() and not CatalogItem.objects.exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id,title\n", "movies.csv line 1: the column 'name' is missing"),
        ("id,name,mood\nm1,Heat,calm\n", "movies.csv line 1: unknown column 'mood'"),
        ("", "movies.csv: is empty; the header is id,name,year,attributes"),
        ("id,name\n", "movies.csv: holds no items"),
        ("id,name\nm1,Heat,extra\n", "movies.csv line 2: has more cells than the header"),
    ],
)
def test_it_refuses_a_csv_catalog_it_cannot_read(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ImportFailed) as failure:
        read_catalog_csv(write(tmp_path / "movies.csv", text))
    assert str(failure.value.problems[0]).startswith(message)


def test_reimporting_a_catalog_replaces_it(tmp_path: Path) -> None:
    first = write(tmp_path / "a.csv", "id,name\nm1,Heat\nm2,Alien\n")
    second = write(tmp_path / "b.csv", "id,name\nm3,Moon\n")
    run("import_catalog", "films", "--csv", str(first))
    run("import_catalog", "films", "--csv", str(second), "--serves", "other")
    stored = Catalog.objects.get()
    assert stored.datasets == ["other"]
    assert list(stored.entries.values_list("name", flat=True)) == ["Moon"]


def test_a_dataset_keeps_one_catalog(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", "id,name\nm1,Heat\n")
    run("import_catalog", "films", "--csv", str(path), "--serves", "redial_eval")
    with pytest.raises(CommandError, match="'redial_eval' is already served by catalog 'films'"):
        run("import_catalog", "movies", "--csv", str(path), "--serves", "redial_eval,other")
    assert list(Catalog.objects.values_list("name", flat=True)) == ["films"]


def test_it_imports_a_concept4crs_catalog_pair() -> None:
    output, _ = run(
        "import_catalog", "redial", "--concept4crs", str(CATALOGS), "--dataset", "redial"
    )
    # Three movies; science fiction, drama, comedy, parody and Leslie Nielsen are not items.
    assert "3 items and 5 other entities, for the datasets redial, redial_eval" in output
    stored = Catalog.objects.get(name="redial")
    airplane = stored.entries.get(kind=CatalogItem.Kind.ITEM, name="Airplane! (1980)")
    # The item keeps the entity id that rec_items use, and the year from its name.
    assert (airplane.item_id, airplane.year, airplane.attributes) == (
        "3",
        1980,
        ["comedy", "parody"],
    )
    built = load_catalog(stored)
    assert len(built) == 3
    assert built.is_other_entity("Leslie Nielsen") and not built.is_other_entity("Zork")


def test_a_bad_concept4crs_catalog_is_named_by_file_and_entry(tmp_path: Path) -> None:
    write(tmp_path / "redial_entity2id.json", '{"Heat": 0, "Alien": "one"}')
    write(tmp_path / "redial_id2info.json", '{"7": {"genre": ["crime"]}, "8": {"name": "Alien"}}')
    with pytest.raises(CommandError) as failure:
        run("import_catalog", "redial", "--concept4crs", str(tmp_path), "--dataset", "redial")
    assert str(failure.value).splitlines()[1:] == [
        "redial_entity2id.json: entity 'Alien': id must be an integer, not 'one'",
        "redial_id2info.json: entry '7': name is required",
    ]
    write(tmp_path / "redial_id2info.json", '{"7": {"name": "Heat",\n "genre": [crime]}}')
    with pytest.raises(CommandError, match=r"redial_id2info.json line 2: not valid JSON"):
        run("import_catalog", "redial", "--concept4crs", str(tmp_path), "--dataset", "redial")
    with pytest.raises(CommandError, match=r"odkg_entity2id.json: not found in"):
        run("import_catalog", "odkg", "--concept4crs", str(tmp_path), "--dataset", "odkg")
    assert not Catalog.objects.exists()


def test_the_catalog_command_needs_a_dataset_for_concept4crs() -> None:
    with pytest.raises(CommandError, match="--concept4crs needs --dataset"):
        run("import_catalog", "redial", "--concept4crs", str(CATALOGS))


def test_a_catalog_name_must_be_a_slug() -> None:
    contents = CatalogContents("x.csv", [])
    with pytest.raises(ImportFailed, match="a catalog name is letters, digits"):
        store_catalog("my films", ["redial"], contents)


# The command ------------------------------------------------------------------------------------


def test_the_command_prints_the_json_contract(imported: Campaign) -> None:
    output, errors = run("concept_scorecard", "C4")
    rows = json.loads(output)["rows"]
    assert [(row["system"], row["dataset"]) for row in rows] == [
        ("chatgpt", "opendialkg_eval"),
        ("chatgpt", "redial_eval"),
        ("kbrd", "redial_eval"),
    ]
    for row in rows:
        assert set(CONTRACT) <= set(row)
        for key in CONTRACT[1:]:
            assert row[key] is None or 0 <= row[key] <= (10 if key.startswith("avg") else 1)
    kbrd = rows[2]
    assert (kbrd["n"], kbrd["acceptance_rate"], kbrd["avg_turns_to_accept"]) == (1, 0.0, None)
    assert '"avg_turns_to_accept": null' in output
    assert errors == ""


def test_the_command_groups_by_the_given_columns_and_prints_a_table(imported: Campaign) -> None:
    rows = json.loads(run("concept_scorecard", "C4", "--by", "system")[0])["rows"]
    assert [(row["system"], row["n"], row["acceptance_rate"]) for row in rows] == [
        ("chatgpt", 2, 1.0),
        ("kbrd", 1, 0.0),
    ]
    table = run("concept_scorecard", str(imported.pk), "--format", "table")[0].splitlines()
    assert re.split(r"\s+", table[0])[:5] == ["system", "dataset", "n", "acceptance_rate",
                                              "avg_turns_to_accept"]  # fmt: skip
    assert re.split(r"\s+", table[3])[:5] == ["kbrd", "redial_eval", "1", "0.000", "-"]


def test_the_command_warns_about_a_dataset_without_a_catalog(imported: Campaign) -> None:
    Catalog.objects.filter(name="redial").delete()
    output, errors = run("concept_scorecard", "C4", "--by", "dataset")
    assert "Dataset 'redial_eval' has no item catalog" in errors
    rows = {row["dataset"]: row for row in json.loads(output)["rows"]}
    assert rows["redial_eval"]["nonexistent_item_ratio"] is None


def test_the_command_counts_success_after_turn_ten_for_no_cutoff(
    campaign_factory: Callable[..., Campaign],
) -> None:
    turns: list[dict[str, Any]] = []
    for number in range(1, 12):
        turns.append({"role": "user", "text": f"Question {number}"})
        turns.append({"role": "system", "text": "Hm.", "success": number == 11})
    campaign_factory("Late", rows=[dialogue("late", turns=turns, outcome=None)])
    row = json.loads(run("concept_scorecard", "Late")[0])["rows"][0]
    # The first success is on system turn 11: within none of the first 3, 5 or 10.
    assert [row[f"sr_dialogue@{k}"] for k in (3, 5, 10)] == [0.0, 0.0, 0.0]
    assert row["sr_rec@3"] is None  # JSONL has no recommender-module flag
    # No outcome and no [END]: not accepted, AR = 0, AT null.
    assert (row["acceptance_rate"], row["avg_turns_to_accept"]) == (0.0, None)


def test_the_command_names_an_unknown_campaign() -> None:
    with pytest.raises(CommandError, match="no annotation campaign named or numbered 'Nope'"):
        run("concept_scorecard", "Nope")


# The pages --------------------------------------------------------------------------------------


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("url_name", ["concept:scorecard", "concept:transcripts"])
def test_the_pages_are_for_coordinators_only(imported: Campaign, url_name: str) -> None:
    url = reverse(url_name, args=[imported.pk])
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))
    for name, held in (("j", roles.JUDGES), ("a", roles.ANNOTATORS), ("o", None)):
        user = person(name, *([held] if held else []))
        assert logged_in(user).get(url).status_code == 403, name
    coordinator = person("c", roles.COORDINATORS)
    assert logged_in(coordinator).get(url).status_code == 200


def test_the_scorecard_page_shows_every_group_linked_to_its_transcripts(
    imported: Campaign,
) -> None:
    client = logged_in(person("c", roles.COORDINATORS))
    page = client.get(reverse("concept:scorecard", args=[imported.pk])).content.decode()
    transcripts = reverse("concept:transcripts", args=[imported.pk])
    ar_row = re.search(r'<tr data-measure="acceptance_rate">(.*?)</tr>', page, re.S)
    assert ar_row is not None
    cells = re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', ar_row[1])
    assert cells == [
        (f"{transcripts}?system=chatgpt&amp;dataset=opendialkg_eval", "100.0%"),
        (f"{transcripts}?system=chatgpt&amp;dataset=redial_eval", "100.0%"),
        (f"{transcripts}?system=kbrd&amp;dataset=redial_eval", "0.0%"),
    ]
    at_row = re.search(r'<tr data-measure="avg_turns_to_accept">(.*?)</tr>', page, re.S)
    assert at_row is not None
    assert "accepted=yes" in at_row[1] and "—" in at_row[1]
    assert 'title="no transcript in the group was accepted"' in at_row[1]
    # The chart: one group per system. Pooled, chatgpt has five scores: coordination needs the
    # identity and cooperation of both persona groups, and Delight has neither (see
    # test_it_pools_a_system_and_coordinates_its_personas), so it is a dash with its reason.
    # kbrd has a quality of 0 and nothing else (no acceptance to judge, no rubric scores).
    assert page.count('<g class="system"') == 2
    chatgpt = page[page.index('data-system="chatgpt"') : page.index('data-system="kbrd"')]
    assert re.findall(r'<rect class="bar" data-ability="(\w+)"', chatgpt) == [
        "quality",
        "sincerity",
        "identity",
        "cooperation",
        "social_awareness",
    ]
    assert re.search(r'class="bar missing" data-ability="coordination"[^>]*>–<title>', chatgpt)
    kbrd = page[page.index('data-system="kbrd"') :]
    kbrd = kbrd[: kbrd.index("</g>")]
    assert "<rect" not in kbrd
    marks = re.findall(r'class="bar missing" data-ability="(\w+)"[^>]*>(.)<title>', kbrd)
    assert marks[:2] == [("quality", "0"), ("sincerity", "–")]
    # Quality 5 of 5 fills the 160-unit plot.
    assert re.search(
        r'data-ability="quality" x="[\d.]+" y="12.0" width="14" height="160.0"', chatgpt
    )
    # The persona breakdown holds the group means and the coordination beside them.
    breakdown = page[page.index('data-system="chatgpt" data-field="persona_emotion"') :]
    breakdown = breakdown[: breakdown.index("</table>")]
    assert "Boredom" in breakdown and "Delight" in breakdown
    assert "4.50" in breakdown and "2.00" in breakdown
    # Social awareness 2.5 / 3.25 = 0.769; no mean ratio and no score without identity and
    # cooperation ratios (the score was 4.62 from quality and social awareness alone).
    assert "0.769" in breakdown and "mean ratio — · score —" in breakdown
    assert "identity has a value in fewer than two persona_emotion groups" in breakdown
    assert f"{transcripts}?system=chatgpt&amp;persona_emotion=Delight" in breakdown
    assert 'data-dataset="redial_eval"' in page and "catalog redial" in page


def test_the_scorecard_page_switches_the_rater_source(imported: Campaign) -> None:
    client = logged_in(person("c", roles.COORDINATORS))
    url = reverse("concept:scorecard", args=[imported.pk])
    page = client.get(url, {"source": "llm_judge-llm"}).content.decode()
    assert '<a href="?source=llm_judge-llm" aria-current="true">' in page
    chatgpt = page[page.index('data-system="chatgpt"') : page.index('data-system="kbrd"')]
    # The evaluator scored persuasiveness only: identity 4 × (1 − 0) of 5 is 128 units high.
    assert re.search(
        r'data-ability="identity" x="[\d.]+" y="44.0" width="14" height="128.0"', chatgpt
    )
    # It gave no social awareness score, so that bar is a dash.
    assert 'class="bar missing" data-ability="social_awareness"' in chatgpt


def test_an_empty_campaign_has_a_scorecard_page(campaign_factory: Callable[..., Campaign]) -> None:
    campaign = campaign_factory("Empty")
    client = logged_in(person("c", roles.COORDINATORS))
    response = client.get(reverse("concept:scorecard", args=[campaign.pk]))
    assert "This campaign has no dialogue transcripts yet." in response.content.decode()


def listed(client: Client, campaign: Campaign, **filters: str) -> list[str]:
    page = client.get(reverse("concept:transcripts", args=[campaign.pk]), filters)
    assert page.status_code == 200
    return re.findall(
        r'<a href="/annotation/\d+/transcripts/\d+/">([^<]+)</a>', page.content.decode()
    )


def test_the_transcript_list_filters_by_group_persona_and_acceptance(
    imported: Campaign, campaign_factory: Callable[..., Campaign]
) -> None:
    client = logged_in(person("c", roles.COORDINATORS))
    assert listed(client, imported, system="chatgpt") == [CHATGPT_ODKG, CHATGPT_REDIAL]
    assert listed(client, imported, system="chatgpt", dataset="redial_eval") == [CHATGPT_REDIAL]
    assert listed(client, imported, persona_emotion="Delight") == [CHATGPT_ODKG]
    assert listed(client, imported, accepted="no") == [KBRD]
    marked = campaign_factory(
        "Marked",
        rows=[
            dialogue("said-yes", outcome=None),
            dialogue("said-no", outcome=None, turns=[{"role": "user", "text": "No thanks."}]),
        ],
    )
    # Without a stored outcome, the [END] mark in a user turn decides, as in the scorecard.
    assert listed(client, marked, accepted="yes") == ["said-yes"]
    assert listed(client, marked, accepted="no") == ["said-no"]


def test_the_dashboard_links_to_the_scorecard(imported: Campaign) -> None:
    client = logged_in(person("c", roles.COORDINATORS))
    page = client.get(reverse("annotation:dashboard", args=[imported.pk])).content.decode()
    assert f'href="{reverse("concept:scorecard", args=[imported.pk])}"' in page


def test_a_campaign_without_human_scores_shows_no_human_value(imported: Campaign) -> None:
    Response.objects.filter(assignment__campaign=imported).delete()
    cards = campaign_scorecard(gather_inputs(imported))
    for card in cards:
        human = {
            key: card[key]
            for key in card
            if (key.startswith("human_") or key.endswith("_human")) and key != "coordination_human"
        }
        assert human and set(human.values()) == {None}, card["system"]
        assert "no human scores" in card["notes"]["coordination_score_human"]
    # Quality alone (5 for both of chatgpt's emotions) used to give chatgpt a human score of 5.
    assert cards_by_group(imported, ("system",))[("chatgpt",)]["coordination_score_human"] is None

    out, err = run("concept_scorecard", "C4")
    assert {row["coordination_score_human"] for row in json.loads(out)["rows"]} == {None}
    assert "No human scores yet" in err

    rows = [dict(zip(sheet.header, row, strict=True)) for sheet in [concept_sheet(imported)]
            for row in sheet.rows]  # fmt: skip
    assert {row["coordination_score_human"] for row in rows} == {None}
    notes = [str(row["notes_label"]) for row in rows]
    assert all("coordination_score_human: no human scores" in note for note in notes)

    client = logged_in(person("c", roles.COORDINATORS))
    url = reverse("concept:scorecard", args=[imported.pk])
    page = client.get(url, {"source": "human"}).content.decode()
    chatgpt = page[page.index('data-system="chatgpt"') : page.index('data-system="kbrd"')]
    mark = re.search(
        r'class="bar missing" data-ability="coordination"[^>]*>–<title>([^<]*)', chatgpt
    )
    assert mark is not None and "no human scores in the group" in mark[1]
    breakdown = page[page.index('data-system="chatgpt" data-field="persona_emotion"') :]
    assert "score —" in breakdown[: breakdown.index("</table>")]


# The Excel sheet --------------------------------------------------------------------------------


def test_the_concept_sheet_holds_one_row_per_group_and_a_chart(imported: Campaign) -> None:
    sheet = concept_sheet(imported)
    assert sheet.title == "CONCEPT"
    header = list(sheet.header)
    assert header[:3] == ["group", "system", "dataset"] and header[-1] == "notes_label"
    assert not any(name.startswith("coordination_human") and "score" not in name for name in header)
    rows = [dict(zip(header, row, strict=True)) for row in sheet.rows]
    assert [row["group"] for row in rows] == [
        "chatgpt / opendialkg_eval",
        "chatgpt / redial_eval",
        "kbrd / redial_eval",
    ]
    assert rows[1]["sincerity_score"] == 5.0 and rows[2]["avg_turns_to_accept"] is None
    note = str(rows[2]["notes_label"])
    assert "avg_turns_to_accept: no transcript in the group was accepted" in note
    target = io.BytesIO()
    write_workbook(target, [concept_sheet(imported)])
    worksheet = load_workbook(io.BytesIO(target.getvalue()))["CONCEPT"]
    assert worksheet.cell(row=3, column=1).value == "chatgpt / redial_eval"
    chart = zipfile.ZipFile(target).read("xl/charts/chart1.xml").decode()
    assert "<barChart>" in chart and "CONCEPT abilities" in chart


def test_the_excel_report_gains_the_concept_sheet() -> None:
    from annotation.report.workbook import table_slugs

    assert "concept" in table_slugs()


def test_pairwise_answers_stay_out_of_the_scorecard(imported: Campaign) -> None:
    pairwise = Dimension.objects.get(rubric=imported.rubric, key="better_response")
    transcript = imported.transcripts.get(external_id=KBRD)
    LLMScore.objects.create(transcript=transcript, dimension=pairwise, evaluator="pair", score=1)
    assert "pair" not in gather_inputs(imported).llm_scores
