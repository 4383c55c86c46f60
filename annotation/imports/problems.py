"""What keeps an input from being imported, and the one collector of such problems.

A `Problem` names the file, the line (or row) and the message, e.g.
``transcripts.jsonl line 17: turns[3].role must be 'user' or 'system'``. Readers gather them
in a `Problems` collector, which keeps the first `MAX_PROBLEMS` and counts the rest, and raise
`ImportFailed` with all of them once the whole input has been read; nothing is written then.
A `FieldError` is one invalid field of one row, located by its path in the JSON shape.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_PROBLEMS = 50


@dataclass(frozen=True)
class Problem:
    """One reason an input cannot be imported, located as precisely as the format allows."""

    source: str
    message: str
    line: int | None = None
    unit: str = "line"

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.source}: {self.message}"
        return f"{self.source} {self.unit} {self.line}: {self.message}"


class ImportFailed(Exception):
    """The input holds problems; nothing was written."""

    def __init__(self, problems: list[Problem], total: int | None = None) -> None:
        self.problems = problems
        self.total = total if total is not None else len(problems)
        super().__init__(self.summary)

    @property
    def summary(self) -> str:
        lines = [str(problem) for problem in self.problems]
        if self.total > len(self.problems):
            lines.append(f"… and {self.total - len(self.problems)} more problems")
        return "\n".join(lines)


class FieldError(ValueError):
    """A field of one row is invalid; ``path`` names it as in the JSON shape."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path} {message}" if path else message)


class Problems:
    """Collects problems, keeping the first `MAX_PROBLEMS` and counting the rest."""

    def __init__(self) -> None:
        self.kept: list[Problem] = []
        self.total = 0

    def add(self, problem: Problem) -> None:
        self.total += 1
        if len(self.kept) < MAX_PROBLEMS:
            self.kept.append(problem)

    def note(self, source: str, message: str, line: int | None = None) -> None:
        """Adds the problem ``message`` found in ``source`` (at ``line``, where known)."""
        self.add(Problem(source, message, line))

    def raise_if_any(self) -> None:
        if self.total:
            raise ImportFailed(self.kept, self.total)
