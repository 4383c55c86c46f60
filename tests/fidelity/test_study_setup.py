"""The coordinator chooses the tasks and counts to draw, and edits or deletes simulators."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse
from django.utils import translation
from pytest_django.fixtures import Settings

from fidelity.content import YesNoPayload, payload_json
from fidelity.models import Answer, PeopleCampaign, Simulator, Study
from fidelity.prompts import PromptCounts, make_prompts


def test_only_the_chosen_tasks_are_drawn_with_their_counts_and_sent_to_people(
    coordinator_client: Client, study: Study
) -> None:
    form = {"tasks": ["items_talk", "bin_pref"], "items_talk": 2, "bin_pref": 3, "open_pref": 4}
    response = coordinator_client.post(reverse("fidelity:prompts", args=[study.pk]), form)
    assert response.status_code == 302
    drawn = {task: study.prompts.filter(task=task).count() for task in ("items_talk", "bin_pref")}
    assert drawn == {"items_talk": 2, "bin_pref": 3}
    assert study.prompts.count() == 5  # no open preference, though a count was given
    send = coordinator_client.post(
        reverse("fidelity:send_to_people", args=[study.pk]), {"people": 2}
    )
    assert send.status_code == 302
    sent = set(PeopleCampaign.objects.filter(study=study).values_list("task", flat=True))
    assert sent == {"items_talk", "bin_pref"}


def test_a_count_beyond_the_data_is_a_field_error_and_nothing_is_drawn(
    coordinator_client: Client, study: Study
) -> None:
    url = reverse("fidelity:prompts", args=[study.pk])
    with translation.override("en"):
        response = coordinator_client.post(
            url, {"tasks": ["bin_pref", "feedback"], "bin_pref": 6, "feedback_requests": 4}
        )
    text = response.content.decode()
    assert response.status_code == 400
    assert "At most 5: the study has 5 items." in text
    assert "At most 3: the study has 3 requests." in text
    assert 'id="field-bin_pref"' in text and not study.prompts.exists()
    with translation.override("en"):
        empty = coordinator_client.post(url, {"bin_pref": 2})
    assert empty.status_code == 400 and not study.prompts.exists()


def test_the_form_offers_the_default_counts_within_the_data(
    coordinator_client: Client, study: Study
) -> None:
    page = coordinator_client.get(reverse("fidelity:study", args=[study.pk])).content.decode()
    defaults = PromptCounts()
    # 5 items: every item for binary preference (the default would be 200).
    assert 'name="bin_pref" value="5"' in page
    assert f'name="items_talk" value="{defaults.items_talk}"' in page
    assert 'name="feedback_requests" value="3"' in page
    assert page.count('name="tasks"') == 5 and page.count("checked") >= 5


def test_a_simulator_without_answers_is_edited_and_deleted(
    coordinator_client: Client, study: Study, settings: Settings
) -> None:
    settings.LLM_KEYS = "local:@http://127.0.0.1:9/v1"
    simulator = Simulator.objects.create(
        study=study, label="old", configuration="DI", llm={"credential": "local", "model": "m"}
    )
    url = reverse("fidelity:edit_simulator", args=[study.pk, simulator.pk])
    page = coordinator_client.get(url).content.decode()
    assert 'value="old"' in page and 'value="m"' in page
    form = {
        "credential": "local",
        "model": "m2",
        "concurrency": 1,
        "label": "new IH",
        "configuration": "IH",
        "temperature": "0.7",
    }
    assert coordinator_client.post(url, form).status_code == 302
    simulator.refresh_from_db()
    assert (simulator.label, simulator.configuration) == ("new IH", "IH")
    assert simulator.llm == {
        "credential": "local",
        "model": "m2",
        "concurrency": 1,
        "temperature": 0.7,
    }
    bad = coordinator_client.post(url, {**form, "temperature": "3"})
    assert bad.status_code == 400
    delete = reverse("fidelity:delete_simulator", args=[study.pk, simulator.pk])
    assert coordinator_client.post(delete).status_code == 302
    assert not Simulator.objects.filter(pk=simulator.pk).exists()


def test_a_simulator_with_answers_is_neither_edited_nor_deleted(
    coordinator_client: Client, study: Study
) -> None:
    make_prompts(study)
    simulator = Simulator.objects.create(study=study, label="used", configuration="DI", llm={})
    Answer.objects.create(
        prompt=study.prompts.get(key="bin_pref-1"),
        group="used",
        responder="bin_pref-1",
        source="simulator",
        simulator=simulator,
        payload=payload_json(YesNoPayload(True)),
    )
    delete = reverse("fidelity:delete_simulator", args=[study.pk, simulator.pk])
    with translation.override("en"):
        response = coordinator_client.post(delete, follow=True)
    assert "Simulator used has answers already" in response.content.decode()
    assert Simulator.objects.filter(pk=simulator.pk).exists() and simulator.answers.count() == 1
    edit = reverse("fidelity:edit_simulator", args=[study.pk, simulator.pk])
    form = {"credential": "x", "model": "m", "concurrency": 1, "label": "renamed"}
    with translation.override("en"):
        refused = coordinator_client.post(edit, {**form, "configuration": "DI"}, follow=True)
    assert "has answers already" in refused.content.decode()
    simulator.refresh_from_db()
    assert simulator.label == "used"
    study_page = coordinator_client.get(reverse("fidelity:study", args=[study.pk]))
    assert f'href="{edit}"' not in study_page.content.decode()
