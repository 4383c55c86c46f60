"""Time the CONCEPT scorecard of a campaign of 6,720 transcripts (the paper's corpus size).

The campaign is filled with bulk inserts: four systems × two datasets, 48 personas (12
emotions × 4 age groups), dialogues of 4 to 10 exchanges whose system turns name three films
each (one in ten not in the catalog), success flags, acceptances with [END]; two submitted
human annotations per transcript on the eight CONCEPT dimensions (plus the binary question
when accepted) and one LLM evaluator's scores; and a catalog of 5,000 films and 5,000 other
entities per dataset. Then the scorecard is computed through ``annotation.concept.scorecard`` as
the command does (gather, then group by system × dataset), the page's extra grouping by
system, the Excel sheet, and the page itself. Run from the repository root:
``python bench/concept.py``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing.servers import TemporaryDatabase

TRANSCRIPTS = 6_720
SYSTEMS = ("kbrd", "barcor", "unicrs", "chatgpt")
DATASETS = ("redial_eval", "opendialkg_eval")
EMOTIONS = (
    "Anger",
    "Anticipation",
    "Boredom",
    "Confusion",
    "Curiosity",
    "Delight",
    "Disappointment",
    "Disgust",
    "Frustration",
    "Indifference",
    "Surprise",
    "Trust",
)
AGE_GROUPS = ("Children", "Teens", "Adults", "Seniors")
GENRES = ("comedy", "drama", "horror", "romance", "action", "thriller", "animation", "family")
FILMS = 5_000
ANNOTATORS = 2
EVALUATOR = "judge-llm"
BATCH = 2_000
SEED = 42


def film(number: int) -> tuple[str, int]:
    return f"Film {number}", 1950 + number % 70


def catalog_contents(dataset: str) -> Any:
    from annotation.concept.catalogs import CatalogContents, CatalogItem

    items = []
    for number in range(FILMS):
        title, year = film(number)
        genres = (GENRES[number % len(GENRES)], GENRES[(number * 3 + 1) % len(GENRES)])
        items.append(CatalogItem(str(number), f"{title} ({year})", year, genres))
    others = [(f"Person {n}", str(FILMS + n)) for n in range(FILMS)]
    return CatalogContents(f"generated {dataset}", items, others)


def transcript_fields(number: int, rng: random.Random) -> dict[str, Any]:
    exchanges = rng.randint(4, 10)
    preferences = sorted(rng.sample(GENRES, 2))
    accepted_at = rng.randint(2, exchanges) if rng.random() < 0.45 else None
    success_at = rng.randint(1, 12)
    turns: list[dict[str, Any]] = [{"role": "user", "text": "Hello"}]
    last_named: list[str] = []
    for exchange in range(1, exchanges + 1):
        names = []
        for _ in range(3):
            pick = rng.randrange(FILMS)
            title, year = film(pick)
            # One name in ten is made up, as systems do.
            names.append(
                f"Imagined {title} ({year})" if rng.random() < 0.1 else f"{title} ({year})"
            )
        last_named = names
        turns.append(
            {
                "role": "system",
                "text": f'You might like {names[0]}, or "{names[1].rsplit(" (", 1)[0]}".',
                "items": names,
                "entity": names[2:],
                "rec_success_dialogue": exchange == success_at,
                "rec_success_rec": exchange == success_at + 1,
            }
        )
        if accepted_at == exchange:
            turns.append({"role": "user", "text": "Perfect, I will watch it. [END]"})
            break
        turns.append(
            {
                "role": "user",
                "text": f"Something more {preferences[exchange % 2]}, please.",
                "feelings": "Not quite what I wanted.",
            }
        )
    return {
        "external_id": f"gen-{number:05d}",
        "system": SYSTEMS[number % len(SYSTEMS)],
        "dataset": DATASETS[(number // len(SYSTEMS)) % len(DATASETS)],
        "lang": "en",
        "persona_emotion": EMOTIONS[number % len(EMOTIONS)],
        "persona_age_group": AGE_GROUPS[(number // len(EMOTIONS)) % len(AGE_GROUPS)],
        "preferences": preferences,
        "turns": turns,
        "accepted": accepted_at is not None,
        "accepted_items": last_named[:1] if accepted_at is not None else [],
        "accepted_turn": len(turns) if accepted_at is not None else None,
        "position": number,
    }


def fill(campaign: Any, annotators: list[Any]) -> dict[str, int]:
    """Bulk-insert the transcripts, the human answers and the LLM scores; return counts."""
    from django.utils import timezone

    from annotation.models import Assignment, Dimension, LLMScore, Response, Transcript

    rng = random.Random(SEED)
    dimensions = list(campaign.rubric.dimensions.exclude(kind=Dimension.Kind.PAIRWISE))
    now = timezone.now()
    counts = {"transcripts": 0, "responses": 0, "llm_scores": 0}
    for start in range(0, TRANSCRIPTS, BATCH):
        transcripts = Transcript.objects.bulk_create(
            Transcript(campaign=campaign, **transcript_fields(number, rng))
            for number in range(start, min(TRANSCRIPTS, start + BATCH))
        )
        assignments = Assignment.objects.bulk_create(
            Assignment(
                campaign=campaign,
                transcript=transcript,
                annotator=annotator,
                status=Assignment.Status.SUBMITTED,
                submitted_at=now,
            )
            for transcript in transcripts
            for annotator in annotators
        )
        responses = Response.objects.bulk_create(
            (
                Response(
                    assignment=assignment,
                    transcript=assignment.transcript,
                    dimension=dimension,
                    value=rng.randint(dimension.scale_min, dimension.scale_max),
                )
                for assignment in assignments
                for dimension in dimensions
                if dimension.applies_to(assignment.transcript)
            ),
            batch_size=BATCH,
        )
        scores = LLMScore.objects.bulk_create(
            (
                LLMScore(
                    transcript=transcript,
                    dimension=dimension,
                    evaluator=EVALUATOR,
                    score=rng.randint(dimension.scale_min, dimension.scale_max),
                )
                for transcript in transcripts
                for dimension in dimensions
                if dimension.applies_to(transcript)
            ),
            batch_size=BATCH,
        )
        counts["transcripts"] += len(transcripts)
        counts["responses"] += len(responses)
        counts["llm_scores"] += len(scores)
    return counts


def timed(action: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


def main() -> None:
    with TemporaryDatabase() as database:
        os.environ["DATABASE_URL"] = database.url
        os.environ.setdefault("DEBUG", "1")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.contrib.auth.models import Group, User
        from django.core.management import call_command
        from django.test import Client
        from django.test.utils import setup_test_environment
        from django.urls import reverse

        from annotation.concept.catalog_store import store_catalog
        from annotation.concept.scorecard import campaign_scorecard, gather_inputs
        from annotation.concept.sheet import concept_sheet
        from annotation.models import Campaign
        from annotation.rubrics import default_rubric

        setup_test_environment()
        # DEBUG=1 only stands in for a SECRET_KEY here: in debug mode Django would also keep
        # and quote every query, which production does not do.
        settings.DEBUG = False
        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        for dataset in DATASETS:
            store_catalog(dataset.removesuffix("_eval"), [dataset], catalog_contents(dataset))
        annotators = User.objects.bulk_create(
            User(username=f"annotator{n}") for n in range(ANNOTATORS)
        )
        campaign = Campaign.objects.create(name="concept bench", rubric=default_rubric())
        counts = fill(campaign, annotators)
        print(
            f"database: {database.url.split('://')[0]}; {counts['transcripts']:,} transcripts, "
            f"{counts['responses']:,} human answers, {counts['llm_scores']:,} LLM scores and "
            f"2 catalogs of {FILMS:,} films inserted in {time.perf_counter() - started:.1f} s"
        )

        inputs, gather_cold = timed(lambda: gather_inputs(campaign))
        cards, score_cold = timed(lambda: campaign_scorecard(inputs))
        _, gather_warm = timed(lambda: gather_inputs(campaign))
        _, score_warm = timed(lambda: campaign_scorecard(inputs))
        systems, by_system = timed(lambda: campaign_scorecard(inputs, by=("system",)))
        _, sheet_seconds = timed(lambda: list(concept_sheet(campaign).rows))
        coordinator = User.objects.create(username="coordinator")
        coordinator.groups.add(Group.objects.get_or_create(name="coordinators")[0])
        client = Client()
        client.force_login(coordinator)
        url = reverse("concept:scorecard", args=[campaign.pk])
        response, page_seconds = timed(lambda: client.get(url))
        assert response.status_code == 200, response.status_code
        command_seconds = gather_cold + score_cold
        print(
            f"gather (queries, catalogs built): {gather_cold:.2f} s cold, {gather_warm:.2f} s "
            f"with the catalogs cached"
        )
        print(
            f"scorecard by system × dataset ({len(cards)} groups): {score_cold:.2f} s first, "
            f"{score_warm:.2f} s again; by system ({len(systems)} groups): {by_system:.2f} s"
        )
        print(
            f"Excel sheet: {sheet_seconds:.2f} s; scorecard page: {page_seconds:.2f} s "
            f"({len(response.content) / 1024:.0f} KiB)"
        )
        for card in cards:
            print(
                f"  {card['system']:>8} {card['dataset']:<16} n={card['n']:>4} "
                f"AR={card['acceptance_rate']:.3f} AT={card['avg_turns_to_accept']:.2f} "
                f"SR@10={card['sr_dialogue@10']:.3f} "
                f"non-existent={card['nonexistent_item_ratio']:.3f} "
                f"coordination={card['coordination_score_human']:.2f}"
            )
        print(
            json.dumps(
                {
                    "transcripts": counts["transcripts"],
                    "seconds": round(command_seconds, 2),
                    "gather_seconds": round(gather_cold, 2),
                    "scorecard_seconds": round(score_cold, 2),
                    "page_seconds": round(page_seconds, 2),
                    "sheet_seconds": round(sheet_seconds, 2),
                }
            )
        )


if __name__ == "__main__":
    main()
