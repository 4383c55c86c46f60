"""What the simulated judge answers: a turn (inner state, utterance, whether it ends) or a rating.

Each reader is a validator for ``LLMClient.complete_json``: it returns the value, or raises
ValueError saying what is wrong, which the model is shown once before the answer counts as
malformed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalsite.user_simulation import END_MARK
from liveeval.simulation.prompts import RATED, SCALES


@dataclass(frozen=True)
class SimulatedTurn:
    """One turn of the simulator: its inner state, what it says, and whether it ends."""

    feelings: str
    utterance: str
    ends: bool


def read_turn(value: Any) -> SimulatedTurn:
    if not isinstance(value, dict):
        raise ValueError('the answer must be a JSON object {"feelings": ..., "utterance": ...}')
    feelings = value.get("feelings")
    utterance = value.get("utterance")
    if not isinstance(feelings, str) or not feelings.strip():
        raise ValueError("feelings must be a non-empty string: the inner state comes first")
    if not isinstance(utterance, str):
        raise ValueError("utterance must be a string")
    ends = END_MARK in utterance
    said = utterance.replace(END_MARK, "").strip()
    if not said and not ends:
        raise ValueError(f"the utterance is empty; to end, say {END_MARK}")
    return SimulatedTurn(feelings.strip(), said, ends)


@dataclass(frozen=True)
class SimulatedRating:
    completed: bool
    satisfaction: int
    fluency: int
    guidance: int
    reasons: dict[str, str]


def read_rating(value: Any) -> SimulatedRating:
    if not isinstance(value, dict):
        raise ValueError("the answer must be a JSON object with one entry per question")
    answers: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    for name in RATED:
        entry = value.get(name)
        if not isinstance(entry, dict):
            raise ValueError(f"{name} must be an object with a reason and a value")
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"{name} needs a reason")
        answer = entry.get("value")
        if name == "completed":
            if not isinstance(answer, bool):
                raise ValueError(f"completed must be true or false, not {answer!r}")
        elif isinstance(answer, bool) or not isinstance(answer, int) or answer not in SCALES[name]:
            allowed = ", ".join(str(value) for value in SCALES[name])
            raise ValueError(f"{name} must be one of {allowed}, not {answer!r}")
        answers[name] = answer
        reasons[name] = reason.strip()
    return SimulatedRating(**answers, reasons=reasons)
