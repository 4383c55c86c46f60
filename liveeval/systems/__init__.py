"""Systems under test, behind one adapter interface chosen by ``DialogueSystem.kind``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.utils.module_loading import import_string

if TYPE_CHECKING:
    from liveeval.models import DialogueSystem
    from liveeval.systems.base import SystemAdapter

ADAPTERS: dict[str, str] = {
    "reference": "liveeval.systems.builtin.reference_adapter",
    "baseline": "liveeval.systems.builtin.baseline_adapter",
    "http": "liveeval.systems.http.http_adapter",
    "openai": "liveeval.systems.openai.openai_adapter",
}


def adapter_for(system: DialogueSystem) -> SystemAdapter:
    """Build the adapter of a system from its kind and configuration."""
    try:
        path = ADAPTERS[system.kind]
    except KeyError:
        raise ValueError(f"no adapter for system kind {system.kind!r}") from None
    factory: Callable[[dict[str, Any]], SystemAdapter] = import_string(path)
    return factory(system.config)
