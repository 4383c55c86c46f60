"""Rubric annotation: rubrics and their dimensions, campaigns, transcripts, and the scores
people and LLM evaluators give them.

A transcript gets exactly R annotations (``Campaign.annotations_per_item``). An
``Assignment`` is one annotator's hold on, or finished annotation of, one transcript;
``Transcript.active_count`` counts the assignments that take one of the R places (held or
submitted), so that the queue finds the item nearest to completion without counting.

The models live in one module per concept (``rubric``, ``campaign``, ``transcript``, ``llm``,
``catalog``, ``alignment``); they are imported here because Django finds an app's models in
``annotation.models``.
"""

from annotation.models.alignment import (
    Adjudication,
    AdjudicationReason,
    Alignment,
    EvaluatorVersion,
    SplitItem,
)
from annotation.models.campaign import Campaign
from annotation.models.catalog import Catalog, CatalogItem
from annotation.models.llm import LLMScore
from annotation.models.rubric import Dimension, Level, Rubric
from annotation.models.transcript import Assignment, Response, Transcript

__all__ = [
    "Adjudication",
    "AdjudicationReason",
    "Alignment",
    "Assignment",
    "Campaign",
    "Catalog",
    "CatalogItem",
    "Dimension",
    "EvaluatorVersion",
    "LLMScore",
    "Level",
    "Response",
    "Rubric",
    "SplitItem",
    "Transcript",
]
