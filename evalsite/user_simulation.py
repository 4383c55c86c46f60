"""Conventions shared by LLM user simulators and the measures computed on their dialogues.

CONCEPT's user simulator ends its last message with ``[END]`` when it accepts a recommendation
(or, for EvalSite's simulated judges, when its task is done or it gives up). The simulator's
prompts ask for the marker and the CONCEPT measures look for it, so it is defined once, here.
"""

from __future__ import annotations

END_MARK = "[END]"


def has_end_mark(text: str) -> bool:
    """Whether a simulated user's message carries the end marker."""
    return END_MARK in text
