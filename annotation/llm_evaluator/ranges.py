"""A set of ids kept as sorted ranges: what a scoring job has done, as its checkpoint holds it."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence


class IdRanges:
    """A set of ids kept as sorted, disjoint ``[first, last]`` ranges.

    A campaign's transcripts have mostly consecutive ids, so the checkpoint of a job that has
    scored 100,000 of them stays a few numbers long, although it is written after each one.
    """

    def __init__(self, ranges: Iterable[Sequence[int]] = ()) -> None:
        # Stored ranges come from ``as_json``: already sorted and disjoint.
        self._ranges: list[list[int]] = sorted([int(first), int(last)] for first, last in ranges)

    def _index(self, value: int) -> int:
        """The index of the last range starting at or before ``value``, or -1."""
        return bisect.bisect_right(self._ranges, value, key=lambda pair: pair[0]) - 1

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        index = self._index(value)
        return index >= 0 and self._ranges[index][1] >= value

    def __len__(self) -> int:
        return sum(last - first + 1 for first, last in self._ranges)

    def __iter__(self) -> Iterator[int]:
        for first, last in self._ranges:
            yield from range(first, last + 1)

    def add(self, value: int) -> None:
        if value in self:
            return
        index = self._index(value) + 1
        joins_left = index > 0 and self._ranges[index - 1][1] == value - 1
        joins_right = index < len(self._ranges) and self._ranges[index][0] == value + 1
        if joins_left and joins_right:
            self._ranges[index - 1][1] = self._ranges.pop(index)[1]
        elif joins_left:
            self._ranges[index - 1][1] = value
        elif joins_right:
            self._ranges[index][0] = value
        else:
            self._ranges.insert(index, [value, value])

    def as_json(self) -> list[list[int]]:
        return [list(pair) for pair in self._ranges]
