"""What goes wrong with an LLM: no usable answer, or a configuration that cannot work."""

from __future__ import annotations


class LLMError(Exception):
    """No usable answer: the endpoint kept failing, refused the request, or is misconfigured."""

    def __init__(self, reason: str, *, status: int | None = None, attempts: int = 1) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.attempts = attempts


class LLMConfigError(ValueError):
    """An LLM configuration that cannot work, naming the key at fault."""
