"""What goes wrong with an LLM: no usable answer, or a configuration that cannot work."""

from __future__ import annotations


class LLMError(Exception):
    """No usable answer: the endpoint kept failing, refused the request, or is misconfigured.

    The reason is the one way an LLM failure reaches a record, a page or a log, so it is cut
    of every configured key here (:mod:`evalsite.llm.redaction`), and of ``key_env``'s key,
    the one the failing call was sent with.
    """

    def __init__(
        self,
        reason: str,
        *,
        status: int | None = None,
        attempts: int = 1,
        key_env: str = "",
    ) -> None:
        from evalsite.llm.redaction import configured_keys, redact

        reason = redact(reason, configured_keys(key_env))
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.attempts = attempts


class LLMConfigError(ValueError):
    """An LLM configuration that cannot work, naming the key at fault."""
