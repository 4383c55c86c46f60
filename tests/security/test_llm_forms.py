"""Every form that starts LLM calls chooses an operator's credential by name and never takes a
base URL or an environment variable's name."""

from __future__ import annotations

import pytest
from django import forms

from annotation.llm_evaluator.forms import ScoringForm
from evalsite.llm.forms import EndpointForm
from fidelity.forms import SimulatorForm
from liveeval.simulation.forms import SimulationForm


@pytest.mark.parametrize("form", [EndpointForm, ScoringForm, SimulationForm, SimulatorForm])
def test_llm_forms_take_a_credential_and_no_url_or_variable(form: type[forms.Form]) -> None:
    assert "credential" in form.base_fields
    assert not {"base_url", "api_key", "api_key_env"} & set(form.base_fields)
    sent = form.llm_settings(  # type: ignore[attr-defined]
        {
            "credential": "local",
            "model": "m",
            "concurrency": 1,
            "base_url": "http://attacker.example/",
            "api_key_env": "SECRET_KEY",
        }
    )
    assert "base_url" not in sent and "api_key_env" not in sent
