"""The fixed, seeded split of a campaign's items into a calibration part and a held-out part.

Everything that learns from people's scores (few-shot examples, the calibration map, the choice
of the best version) reads the calibration part only; the held-out part is where the result is
measured. The split depends only on the item ids and the seed, and is stored once made, so that
items imported later cannot move an item from one part to the other.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

DEFAULT_SPLIT_SEED = 42
DEFAULT_CALIBRATION_SHARE = 0.5


def calibration_items(
    item_ids: Iterable[int], *, seed: int, calibration_share: float
) -> frozenset[int]:
    """The ids of the calibration part: a seeded random ``calibration_share`` of the items.

    The items are sorted before they are shuffled, so the order they are given in does not
    matter. Raises ValueError for a share outside (0, 1).
    """
    if not 0 < calibration_share < 1:
        raise ValueError("the calibration share must lie between 0 and 1")
    ordered = np.array(sorted(set(item_ids)), dtype=np.int64)
    shuffled = np.random.default_rng(seed).permutation(ordered)
    size = round(len(ordered) * calibration_share)
    return frozenset(int(item) for item in shuffled[:size])
