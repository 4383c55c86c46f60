"""The transcript shape of ``docs/import-formats.md``, its single field list, and its validator.

Every reader turns its input into this shape (a JSON object per transcript: ``id``, ``kind``,
``turns`` or ``context``/``a``/``b``, ``persona``, ``outcome``, ``gold``, ``llm_scores``,
...). `TranscriptValidator` checks one such object against a campaign's rubric and returns
the transcript's model fields, named as in `TRANSCRIPT_FIELDS`, the one list of the fields an
import writes, and its LLM scores.
"""

from __future__ import annotations

from typing import Any

from annotation.imports.fields import (
    ID_MAX_LENGTH,
    check_boolean,
    check_identifier,
    check_number,
    check_object,
    check_string,
    check_strings,
    join_path,
)
from annotation.imports.problems import FieldError
from annotation.models import Dimension, Rubric, Transcript

TURN_ROLES = ("user", "system")
TURN_FIELDS = {
    "role",
    "text",
    "items",
    "success",
    "feelings",
    "entity",
    "rec_items",
    "rec_success_dialogue",
    "rec_success_rec",
}
DIALOGUE_FIELDS = {
    "id",
    "kind",
    "system",
    "dataset",
    "lang",
    "persona",
    "preferences",
    "turns",
    "outcome",
    "llm_scores",
    "gold",
    "metadata",
}
PAIRWISE_FIELDS = (DIALOGUE_FIELDS - {"turns", "outcome"}) | {"context", "a", "b"}
MAX_LENGTHS = {"id": ID_MAX_LENGTH, "system": 100, "dataset": 100, "lang": 16}
# Fields a re-import overwrites; the queue's own fields (position, counts) are kept.
TRANSCRIPT_FIELDS = [
    "kind",
    "system",
    "dataset",
    "lang",
    "persona_emotion",
    "persona_age_group",
    "persona_text",
    "preferences",
    "prompt",
    "prompt_items",
    "turns",
    "response_a",
    "response_b",
    "accepted",
    "accepted_items",
    "accepted_turn",
    "metadata",
    "gold",
    "imported_at",
]


def check_turn(value: Any, path: str) -> dict[str, Any]:
    data = check_object(value, path, TURN_FIELDS)
    role = data.get("role")
    if role not in TURN_ROLES:
        raise FieldError(join_path(path, "role"), "must be 'user' or 'system'")
    if "text" not in data:
        raise FieldError(join_path(path, "text"), "is required")
    turn: dict[str, Any] = {
        "role": role,
        "text": check_string(data["text"], join_path(path, "text")),
    }
    for name in ("items", "entity"):
        if name in data:
            turn[name] = check_strings(data[name], join_path(path, name))
    for name in ("success", "rec_success_dialogue", "rec_success_rec"):
        if name in data:
            turn[name] = check_boolean(data[name], join_path(path, name))
    if "feelings" in data:
        turn["feelings"] = check_string(data["feelings"], join_path(path, "feelings"))
    if "rec_items" in data:
        items = data["rec_items"]
        if not isinstance(items, list) or not all(
            isinstance(i, str | int) and not isinstance(i, bool) for i in items
        ):
            raise FieldError(join_path(path, "rec_items"), "must be a list of item ids")
        turn["rec_items"] = items
    return turn


def check_turns(value: Any, path: str, *, allow_empty: bool) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise FieldError(path, "must be a list of turns")
    if not value and not allow_empty:
        raise FieldError(path, "must hold at least one turn")
    return [check_turn(item, join_path(path, index)) for index, item in enumerate(value)]


def check_response(value: Any, path: str) -> dict[str, str]:
    data = check_object(value, path, {"system", "text"})
    return {
        "system": check_string(data.get("system"), join_path(path, "system"), max_length=100),
        "text": check_string(data.get("text"), join_path(path, "text"), required=True),
    }


class TranscriptValidator:
    """Checks one transcript in the shape of ``docs/import-formats.md`` against a rubric."""

    def __init__(self, rubric: Rubric) -> None:
        self.dimensions: dict[str, Dimension] = {d.key: d for d in rubric.dimensions.scored()}

    def _dimension(self, key: Any, path: str, kind: str) -> Dimension:
        dimension = self.dimensions.get(key) if isinstance(key, str) else None
        if dimension is None:
            raise FieldError(path, f"{key!r} is not a dimension of this campaign's rubric")
        if (dimension.kind == Dimension.Kind.PAIRWISE) != (kind == Transcript.Kind.PAIRWISE):
            raise FieldError(path, f"{key!r} is not asked about {kind} items")
        return dimension

    def _scale(self, dimension: Dimension, value: float, path: str) -> None:
        if not dimension.in_scale(value):
            raise FieldError(
                path,
                f"{value:g} is outside the scale of {dimension.key!r} "
                f"({dimension.scale_min}–{dimension.scale_max})",
            )

    def _gold(self, value: Any, kind: str) -> dict[str, int]:
        gold: dict[str, int] = {}
        for key, answer in check_object(value, "gold").items():
            path = join_path("gold", key)
            dimension = self._dimension(key, path, kind)
            if isinstance(answer, bool) or not isinstance(answer, int):
                raise FieldError(path, "must be an integer answer")
            self._scale(dimension, answer, path)
            gold[key] = answer
        return gold

    def _llm_scores(self, value: Any, kind: str) -> list[tuple[str, str, float, str]]:
        if not isinstance(value, list):
            raise FieldError("llm_scores", "must be a list")
        scores: list[tuple[str, str, float, str]] = []
        seen: set[tuple[str, str]] = set()
        for index, entry in enumerate(value):
            path = join_path("llm_scores", index)
            data = check_object(entry, path, {"evaluator", "dimension", "score", "rationale"})
            evaluator = check_string(
                data.get("evaluator"), join_path(path, "evaluator"), required=True, max_length=100
            )
            dimension = self._dimension(data.get("dimension"), join_path(path, "dimension"), kind)
            score = check_number(data.get("score"), join_path(path, "score"))
            self._scale(dimension, score, join_path(path, "score"))
            if (evaluator, dimension.key) in seen:
                raise FieldError(path, f"repeats {evaluator}'s score for {dimension.key!r}")
            seen.add((evaluator, dimension.key))
            rationale = check_string(data.get("rationale"), join_path(path, "rationale"))
            scores.append((dimension.key, evaluator, score, rationale))
        return scores

    def validate(self, value: Any) -> tuple[dict[str, Any], list[tuple[str, str, float, str]]]:
        """The transcript's model fields and its LLM scores; raises `FieldError`."""
        if not isinstance(value, dict):
            raise FieldError("", "must be a JSON object")
        kind = value.get("kind", Transcript.Kind.DIALOGUE)
        # Prompt items come from fidelity studies, not from files.
        if kind not in (Transcript.Kind.DIALOGUE, Transcript.Kind.PAIRWISE):
            raise FieldError("kind", "must be 'dialogue' or 'pairwise'")
        pairwise = kind == Transcript.Kind.PAIRWISE
        check_object(value, "", PAIRWISE_FIELDS if pairwise else DIALOGUE_FIELDS)
        row: dict[str, Any] = {"external_id": check_identifier(value.get("id"), "id"), "kind": kind}
        for name in ("system", "dataset", "lang"):
            row[name] = check_string(value.get(name), name, max_length=MAX_LENGTHS[name])
        persona = check_object(
            value.get("persona") or {}, "persona", {"emotion", "age_group", "text"}
        )
        row["persona_emotion"] = check_string(
            persona.get("emotion"), "persona.emotion", max_length=64
        )
        row["persona_age_group"] = check_string(
            persona.get("age_group"), "persona.age_group", max_length=64
        )
        row["persona_text"] = check_string(persona.get("text"), "persona.text")
        row["preferences"] = check_strings(value.get("preferences"), "preferences")
        row["metadata"] = check_object(value.get("metadata") or {}, "metadata")
        row.update(prompt="", prompt_items=[])
        if pairwise:
            row["turns"] = check_turns(value.get("context", []), "context", allow_empty=True)
            row["response_a"] = check_response(value.get("a"), "a")
            row["response_b"] = check_response(value.get("b"), "b")
            row.update(accepted=None, accepted_items=[], accepted_turn=None)
        else:
            if "turns" not in value:
                raise FieldError("turns", "is required")
            row["turns"] = check_turns(value["turns"], "turns", allow_empty=False)
            row.update(response_a=None, response_b=None)
            row.update(self._outcome(value.get("outcome"), len(row["turns"])))
        row["gold"] = self._gold(value.get("gold") or {}, kind)
        scores = self._llm_scores(value.get("llm_scores") or [], kind)
        return row, scores

    def _outcome(self, value: Any, turn_count: int) -> dict[str, Any]:
        if value is None:
            return {"accepted": None, "accepted_items": [], "accepted_turn": None}
        data = check_object(value, "outcome", {"accepted", "accepted_items", "turn"})
        accepted = data.get("accepted")
        if accepted is not None:
            accepted = check_boolean(accepted, "outcome.accepted")
        turn = data.get("turn")
        if turn is not None:
            if isinstance(turn, bool) or not isinstance(turn, int):
                raise FieldError("outcome.turn", "must be a turn number or null")
            if not 1 <= turn <= turn_count:
                raise FieldError("outcome.turn", f"must be between 1 and {turn_count}")
        return {
            "accepted": accepted,
            "accepted_items": check_strings(data.get("accepted_items"), "outcome.accepted_items"),
            "accepted_turn": turn,
        }
