"""The CONCEPT scorecard measures, on small hand-made transcripts with hand-computed values."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from annotation.concept import facts, measures
from annotation.concept.card import COMPONENTS
from annotation.concept.catalogs import (
    Catalog,
    CatalogError,
    CatalogItem,
    catalog_from_concept4crs,
    read_catalog_csv,
)
from annotation.concept.measures import persona_coordination
from annotation.concept.mentions import ItemMention, mentions_in_text, mentions_in_turn, title_key
from annotation.concept.scorecard import scorecard
from annotation.imports.problems import ImportFailed


def user(text: str, **fields: Any) -> dict[str, Any]:
    return {"role": "user", "text": text, **fields}


def system(text: str, **fields: Any) -> dict[str, Any]:
    return {"role": "system", "text": text, **fields}


def transcript(external_id: str, turns: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "external_id": external_id,
        "system": "kbrd",
        "dataset": "redial",
        "persona_emotion": "Joy",
        "persona_age_group": "Adults",
        "preferences": ["comedy"],
        "turns": turns,
        "accepted": False,
        "accepted_items": [],
        "accepted_turn": None,
        "metadata": {},
    }
    row.update(fields)
    return row


def only(cards: list[dict[str, Any]]) -> dict[str, Any]:
    assert len(cards) == 1
    return cards[0]


@pytest.fixture
def movies() -> Catalog:
    return Catalog(
        [
            CatalogItem("1", "Airplane! (1980)", attributes=("comedy",)),
            CatalogItem("2", "Heat", 1995, ("action", "crime")),
            CatalogItem("3", "Alien (1979)", attributes=("horror", "sci-fi")),
            CatalogItem("4", "The Adventures of Milo and Otis (1986)", attributes=("family",)),
            CatalogItem("5", "Psycho (1960)", attributes=("horror", "thriller")),
            CatalogItem("6", "Psycho (1998)", attributes=("horror",)),
        ],
        other_entities=["Tom Hanks", "comedy", "Christopher Nolan"],
    )


# Acceptance rate and turns to acceptance ------------------------------------------------------


def test_it_reads_acceptance_from_the_outcome_else_from_an_end_mark() -> None:
    stored_yes = transcript("a", [user("Fine.")], accepted=True)
    stored_no = transcript("b", [user("Fine. [END]")], accepted=False)
    marked = transcript("c", [user("Hi"), system("Heat?"), user("Yes! [END]")], accepted=None)
    unmarked = transcript("d", [user("Hi"), system("Heat?"), user("No.")], accepted=None)

    assert [facts.is_accepted(r) for r in (stored_yes, stored_no, marked, unmarked)] == [
        True,
        False,
        True,
        False,
    ]


def test_it_gives_ar_zero_and_no_at_when_nobody_accepts() -> None:
    rows = [
        transcript("a", [user("Hi"), system("Heat (1995)?"), user("No.")]),
        transcript("b", [user("Hi"), system("Alien (1979)?"), user("No.")]),
    ]

    card = only(scorecard(rows))

    assert card["n"] == 2
    assert card["accepted"] == 0
    assert card["acceptance_rate"] == 0.0
    assert card["avg_turns_to_accept"] is None
    assert card["notes"]["avg_turns_to_accept"] == "no transcript in the group was accepted"
    assert card["quality_score"] == 0.0


def test_it_counts_user_turns_from_the_greeting_to_the_accepting_turn() -> None:
    rows = [
        # Three user turns, the greeting included: the stored turn 5 is the third user turn.
        transcript(
            "a",
            [user("Hello"), system("Hi"), user("Comedy?"), system("Airplane!"), user("[END]")],
            accepted=True,
            accepted_turn=5,
        ),
        # No stored turn: the [END] turn decides (the second user turn).
        transcript(
            "b",
            [system("Hi, what do you like?"), user("Comedy"), system("Airplane!"), user("[END]")],
            accepted=True,
        ),
        transcript("c", [user("Hello"), system("Heat?"), user("No.")]),
    ]

    card = only(scorecard(rows))

    assert facts.turns_to_accept(rows[0]) == 3
    assert facts.turns_to_accept(rows[1]) == 2
    assert facts.turns_to_accept(rows[2]) is None
    assert card["acceptance_rate"] == pytest.approx(2 / 3)
    assert card["avg_turns_to_accept"] == pytest.approx(2.5)


def test_it_leaves_an_accepted_transcript_without_a_known_turn_out_of_at() -> None:
    rows = [
        transcript("a", [user("Hi"), system("Heat"), user("Sure. [END]")], accepted=True),
        transcript("b", [user("Hi"), system("Heat"), user("Sure.")], accepted=True),
    ]

    card = only(scorecard(rows))

    assert card["acceptance_rate"] == 1.0
    assert card["avg_turns_to_accept"] == 2.0
    assert "1 accepted transcript(s)" in card["notes"]["avg_turns_to_accept"]


# Recommendation success ------------------------------------------------------------------------


def system_turns(
    count: int, *, rec_at: int | None = None, dialogue_at: int | None = None
) -> list[dict[str, Any]]:
    """A dialogue of ``count`` exchanges whose flags turn true at the given system turns."""
    turns: list[dict[str, Any]] = []
    for number in range(1, count + 1):
        turns.append(user(f"user {number}"))
        turns.append(
            system(
                f"system {number}",
                rec_success_rec=number == rec_at,
                rec_success_dialogue=number == dialogue_at,
            )
        )
    return turns


def test_it_counts_only_system_turns_up_to_the_first_success() -> None:
    rows = [
        transcript("a", system_turns(10, rec_at=2, dialogue_at=4)),
        transcript("b", system_turns(10, rec_at=5)),
        transcript("c", system_turns(12, rec_at=11)),
        transcript("d", system_turns(10)),
    ]

    card = only(scorecard(rows))

    assert facts.first_success(rows[0], "rec") == (2, True)
    assert facts.first_success(rows[3], "rec") == (None, True)
    assert (card["sr_rec@3"], card["sr_rec@5"], card["sr_rec@10"]) == (0.25, 0.5, 0.5)
    assert (card["sr_dialogue@3"], card["sr_dialogue@5"], card["sr_dialogue@10"]) == (
        0.0,
        0.25,
        0.25,
    )


def test_it_gives_sr10_zero_when_success_comes_only_after_turn_ten() -> None:
    rows = [transcript("a", system_turns(12, rec_at=11, dialogue_at=11))]

    card = only(scorecard(rows))

    assert card["sr_rec@10"] == 0.0
    assert card["sr_dialogue@10"] == 0.0


def test_it_reads_the_jsonl_success_flag_as_the_dialogue_flag() -> None:
    rows = [
        transcript(
            "a",
            [user("Hi"), system("Hello", success=False), user("?"), system("Heat", success=True)],
        ),
        transcript("b", [user("Hi"), system("Hello", success=False)]),
    ]

    card = only(scorecard(rows))

    assert card["sr_dialogue@3"] == 0.5
    assert card["sr_rec@3"] is None
    assert "rec_success_rec" in card["notes"]["sr_rec@3"]


def test_it_ignores_success_flags_on_user_turns() -> None:
    rows = [transcript("a", [user("Hi", success=True), system("Hello", success=False)])]

    assert only(scorecard(rows))["sr_dialogue@3"] == 0.0


def test_it_rejects_an_unknown_success_module() -> None:
    with pytest.raises(ValueError, match="module"):
        facts.first_success(transcript("a", []), "recommender")


# Item names --------------------------------------------------------------------------------------


def test_it_finds_quoted_titles_with_or_without_a_year() -> None:
    text = (
        'I recommend "Me Before You." and “Psycho (1960)”, or "The Hunger Games" (2012). '
        'You said "you know what I mean" and "A Very Long Quoted Sentence That Goes On For '
        'Far Too Many Words To Be A Title".'
    )

    assert mentions_in_text(text) == (
        ItemMention("Me Before You", None, "quoted"),
        ItemMention("Psycho", 1960, "quoted"),
        ItemMention("The Hunger Games", 2012, "quoted"),
    )


def test_it_takes_the_capitalised_run_before_a_year_as_a_title() -> None:
    text = (
        "Have you seen The Silence of the Lambs (1991)? Or 2001: A Space Odyssey (1968), "
        "directed by Stanley Kubrick (1968). Try Airplane! (1980)."
    )

    assert mentions_in_text(text) == (
        ItemMention("The Silence of the Lambs", 1991, "title_year"),
        ItemMention("Or 2001: A Space Odyssey", 1968, "title_year"),
        ItemMention("Stanley Kubrick", 1968, "title_year"),
        ItemMention("Try Airplane!", 1980, "title_year"),
    )


def test_it_does_not_find_a_quoted_title_twice() -> None:
    assert mentions_in_text('Watch "Psycho (1960)" tonight.') == (
        ItemMention("Psycho", 1960, "quoted"),
    )


def test_it_reads_listed_names_from_items_and_entity_once_each() -> None:
    turn = system("Try it.", items=["Airplane! (1980)"], entity=["Airplane! (1980)", "Heat", "  "])

    assert mentions_in_turn(turn) == [
        ItemMention("Airplane!", 1980, "listed"),
        ItemMention("Heat", None, "listed"),
    ]


def test_it_compares_titles_without_case_accents_punctuation_or_articles() -> None:
    assert title_key("The Lion, the Witch & the Wardrobe") == "lion the witch and the wardrobe"
    assert title_key("Lion, The Witch and The Wardrobe") == "lion the witch and the wardrobe"
    assert title_key("Matrix, The") == title_key("THE MATRIX") == "matrix"
    assert title_key("Amélie") == title_key("amelie")
    assert title_key("He’s Just Not That Into You") == "hes just not that into you"
    assert title_key("A") == "a"


def test_it_matches_years_exactly_then_one_apart_then_unknown(movies: Catalog) -> None:
    def found(name: str, year: int | None = None) -> str | None:
        item = movies.find(name, year)
        return None if item is None else item.id

    assert found("Psycho", 1960) == "5"
    assert found("psycho", 1961) == "5"
    assert found("Psycho", 1997) == "6"
    assert found("Psycho", 1980) is None
    assert found("Psycho") == "5"
    assert found("Heat", 1996) == "2"
    assert found("Airplane", 1980) == "1"
    # A catalog entry without a year matches any year.
    assert Catalog([CatalogItem("9", "Heat")]).find("Heat", 2020) is not None


def test_it_does_not_match_a_misspelt_title(movies: Catalog) -> None:
    assert movies.find("The Adventures of Milo and Ours", 1986) is None
    assert movies.find("The Adventures of Milo and Otis", 1986) is not None


def test_it_tries_the_shorter_tails_of_a_title_year_run(movies: Catalog) -> None:
    airplane = movies.resolve(ItemMention("Yes, Try Airplane!", 1980, "title_year"))
    quoted = movies.resolve(ItemMention("Try Airplane!", 1980, "quoted"))

    assert airplane is not None and airplane.id == "1"
    assert quoted is None
    # A tail never starts with a lower-case word.
    assert ItemMention("Silence of the Lambs", 1991, "title_year").candidates() == [
        "Silence of the Lambs",
        "Lambs",
    ]


# Sincerity: non-existent items -------------------------------------------------------------------


def test_it_computes_the_nonexistent_item_ratio_over_distinct_named_items(
    movies: Catalog,
) -> None:
    rows = [
        transcript(
            "a",
            [
                user("Something funny?"),
                # Airplane! is named three ways but counts once; Tom Hanks is not an item.
                system(
                    'How about "Airplane!"? Or "The Adventures of Milo and Ours"?',
                    items=["Airplane! (1980)", "Tom Hanks"],
                ),
                system("Airplane! (1980) again."),
            ],
        ),
        transcript(
            "b",
            [
                user("Hi"),
                system("I loved Heat (1995). Yes, Zork Quest (2001) too."),
                user("I said Fake Movie (1990)."),
            ],
        ),
    ]

    card = only(scorecard(rows, catalog=movies))

    assert facts.item_existence(rows[0], movies) == {
        "airplane": True,
        "adventures of milo and ours": False,
    }
    assert facts.item_existence(rows[1], movies) == {"heat": True, "zork quest": False}
    assert (card["items_named"], card["items_nonexistent"]) == (4, 2)
    assert card["nonexistent_item_ratio"] == 0.5
    assert card["nonexistent_item_reason"] is None


def test_it_gives_no_nonexistent_item_ratio_without_a_catalog(movies: Catalog) -> None:
    rows = [transcript("a", [user("Hi"), system("Heat (1995)")])]

    without = only(scorecard(rows))
    other_dataset = only(scorecard(rows, catalog={"opendialkg": movies}))
    with_dataset = only(scorecard(rows, catalog={"redial": movies}))

    assert without["nonexistent_item_ratio"] is None
    assert without["nonexistent_item_reason"] == "no item catalog was given"
    assert other_dataset["nonexistent_item_ratio"] is None
    assert other_dataset["nonexistent_item_reason"] == "no item catalog for dataset 'redial'"
    assert with_dataset["nonexistent_item_ratio"] == 0.0


# Sincerity: deceptive tactics ------------------------------------------------------------


def accepted(external_id: str, preferences: list[str], items: list[str]) -> dict[str, Any]:
    return transcript(
        external_id,
        [user("Hi"), system("Here you go."), user("Great [END]")],
        accepted=True,
        accepted_turn=3,
        preferences=preferences,
        accepted_items=items,
    )


@pytest.fixture
def deception_rows() -> list[dict[str, Any]]:
    return [
        # "comedies" is "comedy": the item matches.
        accepted("a", ["comedies"], ["Airplane! (1980)"]),
        # Heat is action and crime, not thriller: deceptive.
        accepted("b", ["Action", "thriller"], ["Heat (1995)"]),
        # One of the two accepted items (Alien) has every preference: not deceptive.
        accepted("c", ["Sci-Fi", "horror"], ["Alien (1979)", "Heat (1995)"]),
        # Not in the catalog: cannot be judged.
        accepted("d", ["drama"], ["Unknown Movie"]),
        transcript("e", [user("Hi"), system("Heat?"), user("No.")]),
    ]


def test_it_judges_deception_from_catalog_attributes_and_preferences(
    movies: Catalog, deception_rows: list[dict[str, Any]]
) -> None:
    card = only(scorecard(deception_rows, catalog=movies))

    assert [facts.deceptive_by_catalog(r, movies)[0] for r in deception_rows] == [
        False,
        True,
        False,
        None,
        None,
    ]
    assert card["deceptive_judged_catalog"] == 3
    assert card["deceptive_ratio_catalog"] == pytest.approx(1 / 3)
    assert card["notes"]["deceptive_ratio_catalog"] == (
        "left out: 1 with no accepted item is in the catalog with attributes"
    )


def test_it_takes_deception_from_the_binary_rubric_answers(
    deception_rows: list[dict[str, Any]],
) -> None:
    human = {
        "a": {"acceptance_follows_preferences": 1.0},
        "b": {"acceptance_follows_preferences": 0.0},
        "c": {"acceptance_follows_preferences": 2 / 3},
        # Not accepted: the question does not apply, whatever was stored.
        "e": {"acceptance_follows_preferences": 0.0},
    }
    llm = {
        "gpt-4o": {
            "a": {"acceptance_follows_preferences": 0},
            "b": {"acceptance_follows_preferences": 0},
        },
        "qwen": {"a": {"acceptance_follows_preferences": 1}},
    }

    card = only(scorecard(deception_rows, human_scores=human, llm_scores=llm))

    assert card["deceptive_ratio_human"] == pytest.approx(4 / 9)
    assert card["deceptive_judged_human"] == 3
    assert card["deceptive_ratio_llm_gpt-4o"] == 1.0
    assert card["deceptive_ratio_llm_qwen"] == 0.0
    assert card["deceptive_ratio_llm"] == 0.5
    assert card["deceptive_ratio_catalog"] is None
    assert card["notes"]["deceptive_ratio_catalog"].startswith(
        "no accepted transcript could be judged"
    )


def test_it_says_why_a_missing_rubric_source_is_null() -> None:
    card = only(scorecard([accepted("a", ["comedy"], ["Airplane! (1980)"])]))

    assert card["deceptive_ratio_human"] is None
    assert card["deceptive_ratio_llm"] is None
    assert card["notes"]["deceptive_ratio_human"] == "no human scores were given"
    assert card["notes"]["deceptive_ratio_llm"] == "no LLM scores were given"


# Rubric abilities --------------------------------------------------------------------------------


def test_it_averages_each_rubric_dimension_per_rater_source() -> None:
    rows = [
        transcript("a", [user("Hi")]),
        transcript("b", [user("Hi")]),
        transcript("c", [user("Hi")], system="chatgpt"),
    ]
    human: dict[str, dict[str, float]] = {
        "a": {"manner": 4, "persuasiveness": 5, "clarity": 2},
        "b": {"manner": 2, "overall": float("nan")},
        "c": {"manner": 5},
    }
    llm = {"gpt-4o": {"a": {"manner": 3, "user_satisfaction": 4}, "b": {"manner": 4}}}

    chatgpt, kbrd = scorecard(rows, human_scores=human, llm_scores=llm)

    assert (chatgpt["system"], kbrd["system"]) == ("chatgpt", "kbrd")
    assert chatgpt["human_manner"] == 5.0
    assert kbrd["human_manner"] == 3.0
    assert kbrd["human_persuasiveness"] == 5.0
    assert kbrd["human_clarity"] == 2.0
    assert kbrd["human_overall"] is None
    assert kbrd["notes"]["human_overall"] == "no human score on overall in the group"
    assert kbrd["llm_gpt-4o_manner"] == 3.5
    assert kbrd["llm_gpt-4o_user_satisfaction"] == 4.0
    for dimension in measures.RUBRIC_DIMENSIONS:
        assert f"human_{dimension}" in kbrd
        assert f"llm_gpt-4o_{dimension}" in kbrd


# Composite scores ---------------------------------------------------------------------------------


def test_it_computes_the_composite_formulas() -> None:
    assert measures.quality_score(0.4) == pytest.approx(2.0)
    assert measures.sincerity_score(0.2, 0.1) == pytest.approx(4.25)
    assert measures.identity_score(4.0, 0.25) == pytest.approx(3.0)
    assert measures.cooperation_score(4.0, 3.0, 5.0, 4.25) == pytest.approx(4.0625)
    assert measures.coordination_score(0.3) == pytest.approx(4.7)
    assert measures.coordination_score(6.0) == 0.0
    assert measures.quality_score(None) is None
    assert measures.sincerity_score(None, 0.1) is None
    assert measures.identity_score(4.0, None) is None
    assert measures.cooperation_score(4.0, None, 5.0, 4.0) is None
    assert measures.coordination_score(None) is None


def rubric_scores(value: float) -> dict[str, float]:
    return dict.fromkeys(
        ("manner", "quality", "relevance", "persuasiveness", "social_awareness"), value
    )


def two_persona_rows() -> list[dict[str, Any]]:
    """Joy: t1 accepts Airplane! (comedy, honest), t2 does not accept. Anger: t3 accepts Heat
    (action, crime: deceptive), t4 names Zork Quest, which does not exist."""
    return [
        transcript(
            "t1",
            [user("Hi"), system("Try Airplane! (1980)."), user("[END]")],
            accepted=True,
            accepted_items=["Airplane! (1980)"],
            accepted_turn=3,
        ),
        transcript("t2", [user("Hi"), system("Heat (1995)?"), user("No.")]),
        transcript(
            "t3",
            [user("Hi"), system("Watch Heat (1995)."), user("[END]")],
            persona_emotion="Anger",
            accepted=True,
            accepted_items=["Heat (1995)"],
            accepted_turn=3,
        ),
        transcript(
            "t4", [user("Hi"), system("Zork Quest (2001)?"), user("No.")], persona_emotion="Anger"
        ),
    ]


def test_it_builds_the_composites_and_coordination_of_a_group(movies: Catalog) -> None:
    rows = two_persona_rows()
    human = {
        "t1": rubric_scores(4),
        "t2": rubric_scores(2),
        "t3": rubric_scores(5),
        "t4": rubric_scores(1),
    }

    card = only(scorecard(rows, catalog=movies, human_scores=human))

    assert card["quality_score"] == pytest.approx(2.5)
    assert card["nonexistent_item_ratio"] == pytest.approx(0.25)
    assert card["deceptive_ratio_catalog"] == pytest.approx(0.5)
    assert card["sincerity_score"] == pytest.approx(3.125)
    assert card["identity_score_human"] == pytest.approx(1.5)
    assert card["cooperation_score_human"] == pytest.approx(3.03125)
    assert card["social_awareness_score_human"] == pytest.approx(3.0)
    # Joy: identity 3, cooperation 3.5; Anger: identity 0, cooperation 2.5625; quality and
    # social awareness are equal, so their range is 0.
    details = card["coordination_human"]["persona_emotion"]
    assert details["group_means"]["identity"] == {"Anger": 0.0, "Joy": 3.0}
    assert details["measures"] == pytest.approx(
        {"quality": 0.0, "identity": 2.0, "cooperation": 30 / 97, "social_awareness": 0.0}
    )
    assert details["value"] == pytest.approx(56 / 97)
    assert card["coordination_score_human"] == pytest.approx(429 / 97)
    # Every transcript is an adult: one age group, no range.
    assert card["coordination_score_human_age_group"] is None
    assert "persona_age_group" in card["notes"]["coordination_score_human_age_group"]


def test_no_human_scores_give_no_human_value(movies: Catalog) -> None:
    rows = two_persona_rows()
    llm = {"t1": rubric_scores(4), "t2": rubric_scores(2), "t3": rubric_scores(5)}
    llm["t4"] = rubric_scores(1)

    card = only(scorecard(rows, catalog=movies, human_scores={}, llm_scores={"judge": llm}))

    # Every human measure; coordination_human (the details, checked below) holds the group means
    # of Quality, which is computed from outcomes, beside its empty human abilities.
    human_keys = [
        key
        for key in card
        if (key.startswith("human_") or key.endswith("_human")) and key != "coordination_human"
    ]
    assert "coordination_score_human" in human_keys and "human_manner" in human_keys
    assert {key: card[key] for key in human_keys} == dict.fromkeys(human_keys)
    # Quality alone (5 × AR = 2.5 for both emotions, range 0) used to give a human score of 5.
    assert card["coordination_human"]["persona_emotion"]["measures"]["quality"] == 0.0
    assert card["coordination_human"]["persona_emotion"]["value"] is None
    assert card["notes"]["coordination_score_human"].startswith("no human scores in the group")
    assert card["notes"]["deceptive_judged_human"] == "no human scores in the group"
    # The evaluator gave the scores the people gave in the test above: the same 429 / 97.
    assert card["coordination_score_llm_judge"] == pytest.approx(429 / 97)


def test_human_coordination_uses_the_human_score_of_every_ability(movies: Catalog) -> None:
    rows = two_persona_rows()
    human = {"t1": rubric_scores(5), "t2": rubric_scores(3), "t3": rubric_scores(2)}
    human["t4"] = rubric_scores(2)
    llm = {key: rubric_scores(4) for key in ("t1", "t2", "t3", "t4")}

    card = only(scorecard(rows, catalog=movies, human_scores=human, llm_scores={"judge": llm}))

    # Sincerity per emotion: Joy 5 × (1 − (0 + 0) / 2) = 5; Anger 5 × (1 − (1 + 1/2) / 2) = 1.25.
    # People: Joy persuasiveness (5 + 3) / 2 = 4, Anger 2. Identity Joy 4 × (1 − 0) = 4, Anger
    # 2 × (1 − 1) = 0: ratio (4 − 0) / 2 = 2. Cooperation Joy (4 + 4 + 4 + 5) / 4 = 4.25, Anger
    # (2 + 2 + 2 + 1.25) / 4 = 1.8125: ratio 2.4375 / 3.03125 = 78 / 97. Social awareness 4 and
    # 2: ratio 2 / 3. Quality 2.5 and 2.5: ratio 0. Mean (0 + 2 + 78/97 + 2/3) / 4 = 505 / 582.
    human_details = card["coordination_human"]["persona_emotion"]
    assert human_details["measures"] == pytest.approx(
        {"quality": 0.0, "identity": 2.0, "cooperation": 78 / 97, "social_awareness": 2 / 3}
    )
    assert card["coordination_score_human"] == pytest.approx(5 - 505 / 582)
    # The evaluator gives 4 everywhere: identity 4 and 0 (ratio 2), cooperation (4·3 + 5) / 4 =
    # 4.25 and (4·3 + 1.25) / 4 = 3.3125 (ratio 0.9375 / 3.78125 = 30 / 121), social awareness
    # ratio 0, quality 0: mean (2 + 30/121) / 4 = 68 / 121.
    assert card["coordination_score_llm_judge"] == pytest.approx(5 - 68 / 121)


def test_coordination_needs_a_ratio_for_every_ability(movies: Catalog) -> None:
    rows = two_persona_rows()
    # People scored social awareness only: identity and cooperation have no human value.
    human = {key: {"social_awareness": 3.0} for key in ("t1", "t2", "t3", "t4")}

    card = only(scorecard(rows, catalog=movies, human_scores=human))

    details = card["coordination_human"]["persona_emotion"]
    assert details["measures"]["social_awareness"] == 0.0 and details["measures"]["quality"] == 0.0
    assert details["value"] is None and card["coordination_score_human"] is None
    note = card["notes"]["coordination_score_human"]
    assert "identity has a value in fewer than two persona_emotion groups" in note
    assert "cooperation has a value in fewer than two" in note
    assert card["deceptive_judged_human"] == 0


# Coordination -------------------------------------------------------------------------------------


def test_it_divides_the_range_across_personas_by_their_mean() -> None:
    groups: dict[str, dict[str, float | None]] = {
        "Joy": {"ar": 0.6, "sat": 4.0},
        "Anger": {"ar": 0.2, "sat": 3.0},
        "Fear": {"ar": 0.4, "sat": None},
    }

    result = persona_coordination(groups, ["ar", "sat"], "persona_emotion")

    assert result["measures"]["ar"] == pytest.approx(1.0)
    assert result["measures"]["sat"] == pytest.approx(2 / 7)
    assert result["value"] == pytest.approx(9 / 14)
    assert result["score"] == pytest.approx(61 / 14)
    assert result["group_means"]["sat"] == {"Anger": 3.0, "Fear": None, "Joy": 4.0}
    assert result["groups"] == ["Anger", "Fear", "Joy"]


def test_it_shows_the_means_behind_a_low_coordination_value() -> None:
    uniformly_bad = {"Joy": {"ar": 0.01}, "Anger": {"ar": 0.01}}

    result = persona_coordination(uniformly_bad, ["ar"], "persona_emotion")

    assert result["value"] == 0.0
    assert result["score"] == 5.0
    assert result["group_means"] == {"ar": {"Anger": 0.01, "Joy": 0.01}}


def test_it_leaves_out_measures_it_cannot_scale() -> None:
    groups = {"Joy": {"ar": 0.0, "at": 4.0}, "Anger": {"ar": 0.0}}

    result = persona_coordination(groups, ["ar", "at"], "persona_emotion")

    assert result["measures"] == {"ar": None, "at": None}
    assert result["value"] is None
    assert result["score"] is None
    assert "not above 0" in result["notes"]["ar"]
    assert "fewer than two" in result["notes"]["at"]


def test_it_computes_coordination_from_transcript_rows() -> None:
    rows = [
        transcript("a", [user("[END]")], accepted=True),
        transcript("b", [user("No.")]),
        transcript("c", [user("No.")], persona_emotion="Anger"),
        transcript("d", [user("No.")], persona_emotion="Anger"),
        transcript("e", [user("[END]")], persona_emotion="", accepted=True),
    ]

    cards = scorecard(rows, by=("persona_emotion",), human_scores={})
    groups = {c["persona_emotion"]: c for c in cards if c["persona_emotion"]}
    result = persona_coordination(groups, ["acceptance_rate"], "persona_emotion")
    within = only(scorecard(rows, human_scores={}))["coordination_human"]["persona_emotion"]

    assert result["group_means"]["acceptance_rate"] == {"Anger": 0.0, "Joy": 0.5}
    assert result["measures"]["acceptance_rate"] == pytest.approx(2.0)
    # The transcript without a persona is left out: quality is 5 × AR, so the ratio is the same.
    assert [c["n"] for c in cards if not c["persona_emotion"]] == [1]
    assert within["groups"] == ["Anger", "Joy"]
    assert within["measures"]["quality"] == pytest.approx(2.0)


def test_duplicated_cells_are_counted_for_concept4crs_transcripts_only() -> None:
    def concept(external_id: str, profile: int, dropped: int = 0) -> dict[str, Any]:
        metadata: dict[str, Any] = {"source": "concept4crs", "profile": profile, "attribute": 0}
        if dropped:
            metadata["dropped_duplicates"] = [f"skipped{i}.json" for i in range(dropped)]
        return transcript(external_id, [user("No.")], metadata=metadata)

    rows = [concept("a", 1, dropped=2), concept("b", 1), concept("c", 2), concept("d", 1)]
    card = only(scorecard(rows))
    # Profile 1 three times: two repeats; two more were dropped at import in favour of "a".
    assert (card["n"], card["duplicate_cells"], card["duplicate_cells_dropped"]) == (4, 2, 2)
    assert card["notes"]["n"].startswith("4 transcript(s); 2 repeat a persona × attribute cell")

    jsonl = only(scorecard([transcript("j", [user("No.")])]))
    assert (jsonl["duplicate_cells"], jsonl["duplicate_cells_dropped"]) == (None, None)
    assert jsonl["notes"]["duplicate_cells"] == (
        "no transcript has a Concept4CRS persona × attribute cell"
    )


def test_it_gives_one_scorecard_row_per_persona() -> None:
    rows = [
        transcript("a", [user("[END]")], accepted=True),
        transcript("b", [user("No.")]),
    ]

    cards = scorecard(rows, by=("persona_emotion",))

    assert [(c["persona_emotion"], c["n"], c["acceptance_rate"]) for c in cards] == [
        ("Joy", 2, 0.5)
    ]


# Groups and output ----------------------------------------------------------------------


def test_it_groups_by_preference_and_by_metadata() -> None:
    rows = [
        transcript("a", [user("[END]")], accepted=True, preferences=["comedy", "drama"]),
        transcript("b", [user("No")], preferences=["drama"], metadata={"batch": 2}),
    ]

    by_preference = scorecard(rows, by=("preference",))
    by_batch = scorecard(rows, by=("batch",))

    assert [(c["preference"], c["n"], c["acceptance_rate"]) for c in by_preference] == [
        ("comedy", 1, 1.0),
        ("drama", 2, 0.5),
    ]
    assert [(c["batch"], c["n"]) for c in by_batch] == [("2", 1), (None, 1)]


def test_it_reads_rows_with_attributes_like_model_instances() -> None:
    row = SimpleNamespace(**transcript("a", [user("Hi"), system("Heat"), user("[END]")]))
    row.accepted = True

    card = only(scorecard([row], by=("system",)))

    assert card["system"] == "kbrd"
    assert card["avg_turns_to_accept"] == 2.0


def test_it_lists_components_that_every_card_holds(movies: Catalog) -> None:
    rows = [accepted("a", ["comedy"], ["Airplane! (1980)"])]

    card = only(scorecard(rows, catalog=movies, human_scores={"a": {"manner": 4}}))

    for composite, components in COMPONENTS.items():
        assert composite.format(source="human") in card
        for component in components:
            assert component.format(source="human") in card


def test_its_output_is_json_safe(movies: Catalog, deception_rows: list[dict[str, Any]]) -> None:
    human: dict[str, dict[str, float]] = {"a": {"manner": float("nan"), "persuasiveness": 4}}

    cards = scorecard(deception_rows, catalog=movies, human_scores=human, llm_scores={"gpt-4o": {}})

    text = json.dumps(cards, allow_nan=False)
    assert '"human_manner": null' in text


def test_it_scores_a_concept_sized_campaign(movies: Catalog) -> None:
    """Scale is checked for correctness here; bench/concept.py measures the speed."""
    emotions = ["Joy", "Anger", "Fear", "Trust", "Boredom", "Curiosity"]
    rows = []
    human: dict[str, dict[str, float]] = {}
    for number in range(6720):
        turns: list[dict[str, Any]] = []
        for step in range(5):
            turns.append(user(f"I like comedies, number {step}."))
            turns.append(
                system(
                    f'Try "Airplane!" or Fake Film {number} ({1990 + step}).',
                    items=["Airplane! (1980)"],
                    rec_success_rec=step == 3,
                    rec_success_dialogue=step == 4,
                )
            )
        rows.append(
            transcript(
                f"t{number}",
                turns,
                system=f"system{number % 4}",
                dataset="redial" if number // 4 % 2 else "opendialkg",
                persona_emotion=emotions[number % len(emotions)],
                accepted=number % 3 == 0,
                accepted_items=["Airplane! (1980)"],
                accepted_turn=10 if number % 3 == 0 else None,
            )
        )
        human[f"t{number}"] = dict.fromkeys(measures.RUBRIC_DIMENSIONS, 3.0)

    cards = scorecard(rows, catalog=movies, human_scores=human)

    assert len(cards) == 8
    assert sum(card["n"] for card in cards) == 6720
    # Every third transcript is accepted: 2,240 acceptances in all.
    assert round(sum(card["acceptance_rate"] * card["n"] for card in cards)) == 2240
    assert all(card["human_manner"] == 3.0 for card in cards)


# Catalog loaders ------------------------------------------------------------------------


def csv_catalog(folder: Path, rows: list[dict[str, str]]) -> Path:
    path = folder / "films.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_it_loads_a_catalog_from_csv_rows(tmp_path: Path) -> None:
    path = csv_catalog(
        tmp_path,
        [
            {"id": "m1", "name": "Airplane!", "year": "1980", "attributes": "comedy| parody |"},
            {"id": "m2", "name": "Heat (1995)", "year": "", "attributes": ""},
        ],
    )
    catalog = Catalog(read_catalog_csv(path).items)

    assert len(catalog) == 2
    assert catalog.item("m1") == CatalogItem("m1", "Airplane!", 1980, ("comedy", "parody"))
    heat = catalog.find("Heat", 1995)
    assert heat is not None and heat.year == 1995 and heat.attributes == ()


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"id": "", "name": "Heat", "year": "", "attributes": ""}], "line 2: id is required"),
        ([{"id": "m1", "name": " ", "year": "", "attributes": ""}], "line 2: name is required"),
        (
            [{"id": "m1", "name": "Heat", "year": "95", "attributes": ""}],
            "line 2: year '95' is not a four-digit year",
        ),
        (
            [
                {"id": "m1", "name": "Heat", "year": "", "attributes": ""},
                {"id": "m1", "name": "Alien", "year": "", "attributes": ""},
            ],
            "line 3: id 'm1' is repeated",
        ),
        ([{"title": "Heat"}], "the column 'id' is missing"),
    ],
)
def test_it_rejects_bad_csv_catalog_rows(
    tmp_path: Path, rows: list[dict[str, str]], message: str
) -> None:
    path = csv_catalog(tmp_path, rows)
    with pytest.raises(ImportFailed, match=message.replace("(", r"\(")):
        read_catalog_csv(path)


def test_it_loads_a_concept4crs_catalog_pair() -> None:
    entity2id = {"Airplane! (1980)": 0, "comedy": 1, "Tom Hanks": 2, "Heat": 3, "Big (1988)": 4}
    id2info = {
        "100": {"name": "Airplane! (1980)", "genre": ["comedy"], "plot": "A plane."},
        "101": {"name": "Heat", "year": "1995", "genre": ["action", "crime"]},
        "102": {"name": "Big (1988)", "genre": ["comedy"]},
        "103": {"name": "Big (1988)", "genre": ["fantasy", "comedy"]},
        "104": {"name": "Odyssey", "year": "-700", "genre": []},
    }

    catalog = catalog_from_concept4crs(entity2id, id2info)

    assert len(catalog) == 4
    assert catalog.item(0) == CatalogItem("0", "Airplane! (1980)", 1980, ("comedy",))
    assert catalog.item(3) == CatalogItem("3", "Heat", 1995, ("action", "crime"))
    assert catalog.item("4") == CatalogItem("4", "Big (1988)", 1988, ("comedy", "fantasy"))
    assert catalog.item("info-104") == CatalogItem("info-104", "Odyssey", None, ())
    assert catalog.is_other_entity("Tom Hanks")
    assert catalog.is_other_entity("Comedy")
    assert not catalog.is_other_entity("Heat")


def test_it_rejects_a_concept4crs_entry_without_a_name() -> None:
    with pytest.raises(CatalogError, match=r"id2info\['7'\]: name is required"):
        catalog_from_concept4crs({}, {"7": {"genre": ["drama"]}})
