from __future__ import annotations

import pytest

from fidelity.imports import ItemRow, RequestRow, store_items, store_requests
from fidelity.models import Study

ITEMS = [
    ItemRow("m1", "Heat", 4.5, 9000),
    ItemRow("m2", "Alien", 4.0, 8000),
    ItemRow("m3", "Jaws", 3.5, 300),
    ItemRow("m4", "Big", 2.0, 200),
    ItemRow("m5", "Up", 3.0, 1000),
]
REQUESTS = [
    RequestRow("r1", "A heist film please", ("m1",), "Try Heat."),
    RequestRow("r2", "Something with sharks", ("m3",), "Jaws!"),
    RequestRow("r3", "A space horror", ("m2",), "Alien."),
]


@pytest.fixture
def study(db: None) -> Study:
    made = Study.objects.create(name="Test study", language="en", seed=7)
    store_items(made, ITEMS)
    store_requests(made, REQUESTS)
    return made
