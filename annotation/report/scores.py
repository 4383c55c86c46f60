"""Scores gathered from the database into frames for ``evalsite.agreement``."""

from __future__ import annotations

import pandas as pd

from annotation.models import Assignment, Campaign, Dimension, LLMScore, Response
from annotation.models.transcript import version_label

METADATA_COLUMNS = ("system", "dataset", "lang", "persona_emotion", "persona_age_group")
COLUMNS = ("item", "rater", "score", "dimension", *METADATA_COLUMNS, "is_llm")


def long_scores(campaign: Campaign) -> pd.DataFrame:
    """Every submitted human answer and every LLM score of ``campaign``, one row per score.

    Columns: item (the transcript's external id, with its version from the second on:
    each version is an item of its own), rater (the annotator's username, or the
    evaluator's name for LLM rows), score, dimension (its key), the transcript's metadata
    (system, dataset, lang, persona_emotion, persona_age_group) and ``is_llm``. Pairwise
    answers are in the item's terms (the lowest value means response A). Free-text answers
    are words, not scores, and are left out. Three queries,
    whatever the size of the campaign.
    """
    items = pd.DataFrame.from_records(
        [
            (pk, version_label(external_id, version), *meta)
            for pk, external_id, version, *meta in campaign.transcripts.values_list(
                "pk", "external_id", "version", *METADATA_COLUMNS
            )
        ],
        columns=["transcript", "item", *METADATA_COLUMNS],
    )
    humans = pd.DataFrame.from_records(
        list(
            Response.objects.filter(
                assignment__campaign=campaign, assignment__status=Assignment.Status.SUBMITTED
            )
            .exclude(dimension__kind=Dimension.Kind.TEXT)
            .values_list(
                "transcript_id", "assignment__annotator__username", "value", "dimension__key"
            )
        ),
        columns=["transcript", "rater", "score", "dimension"],
    )
    humans["is_llm"] = False
    machines = pd.DataFrame.from_records(
        list(
            LLMScore.objects.filter(transcript__campaign=campaign).values_list(
                "transcript_id", "evaluator", "score", "dimension__key"
            )
        ),
        columns=["transcript", "rater", "score", "dimension"],
    )
    machines["is_llm"] = True
    scores = pd.concat([humans, machines], ignore_index=True)
    scores["score"] = scores["score"].astype("float64")
    scores["is_llm"] = scores["is_llm"].astype("bool")
    frame = scores.merge(items, on="transcript", how="inner", validate="many_to_one")
    return frame.loc[:, list(COLUMNS)].reset_index(drop=True)


def item_pks(campaign: Campaign) -> dict[str, int]:
    """Each item of `long_scores` (a transcript version's label) and its transcript's pk."""
    return {
        version_label(external_id, version): pk
        for pk, external_id, version in campaign.transcripts.values_list(
            "pk", "external_id", "version"
        )
    }
