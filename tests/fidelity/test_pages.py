from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import translation

from evalsite import jobs
from evalsite.fidelity.common import RESPONDERS, entropy_measures
from evalsite.models import Job
from fidelity.demo import DEMO_STUDY, seed
from fidelity.models import Simulator, Study
from fidelity.pages import ShownRow, _shown_cell
from fidelity.prompts import PromptCounts, make_prompts
from fidelity.report import Cell, study_report
from tests.conftest import logged_in, make_user

PAGES = ("fidelity:study", "fidelity:report", "fidelity:report_csv", "fidelity:report_xlsx")


@pytest.mark.parametrize("role", ["judges", "annotators", "participants", None])
def test_only_coordinators_reach_the_fidelity_pages(study: Study, role: str | None) -> None:
    client = logged_in(make_user("someone", *([role] if role else [])))
    urls = [reverse("fidelity:studies")] + [reverse(name, args=[study.pk]) for name in PAGES]
    for url in urls:
        assert client.get(url).status_code == 403, url
    posts = ("fidelity:prompts", "fidelity:upload_items", "fidelity:add_simulator")
    for name in (*posts, "fidelity:embed_requests"):
        assert client.post(reverse(name, args=[study.pk])).status_code == 403
    anonymous = Client().get(reverse("fidelity:report", args=[study.pk]))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_a_coordinator_creates_a_study_uploads_files_and_draws_prompts(
    coordinator_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "start", jobs.run)
    response = coordinator_client.post(
        reverse("fidelity:studies"), {"name": "Films", "language": "zh", "seed": 3}
    )
    study = Study.objects.get(name="Films")
    assert response["Location"] == reverse("fidelity:study", args=[study.pk])
    items = b"item_id,title,avg_rating,n_ratings\nm1,Heat,4.5,9000\nm2,Up,3,10\nm3,Big,2,5\n"
    upload = SimpleUploadedFile("items.csv", items)
    coordinator_client.post(reverse("fidelity:upload_items", args=[study.pk]), {"items": upload})
    assert study.items.count() == 3
    coordinator_client.post(
        reverse("fidelity:prompts", args=[study.pk]), {"tasks": ["bin_pref"], "bin_pref": 3}
    )
    assert study.prompts.filter(task="bin_pref").count() == 3
    with translation.override("en"):
        page = coordinator_client.get(reverse("fidelity:study", args=[study.pk]))
    assert page.status_code == 200 and "Binary preference: 3" in page.content.decode()


def test_a_bad_upload_shows_its_problems_and_changes_nothing(
    coordinator_client: Client, study: Study, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "start", jobs.run)
    bad = SimpleUploadedFile("reqs.jsonl", b'{"id": "x", "request": "hi"}\n')
    with translation.override("en"):
        response = coordinator_client.post(
            reverse("fidelity:upload_requests", args=[study.pk]), {"requests": bad}, follow=True
        )
    assert (
        "reqs.jsonl line 1: field answer_items: must be a non-empty list"
        in response.content.decode()
    )
    assert study.requests.count() == 3


def test_a_simulator_is_added_with_a_named_credential_and_run(
    coordinator_client: Client, study: Study, settings: Any
) -> None:
    settings.LLM_KEYS = "local:@http://127.0.0.1:9/v1"
    make_prompts(study, PromptCounts(items_talk=1, open_pref=1, rec_request=1))
    form = {
        "credential": "local",
        "model": "m",
        "concurrency": 2,
        "label": "m DI+PP",
        "configuration": "DI+PP",
    }
    url = reverse("fidelity:add_simulator", args=[study.pk])
    assert coordinator_client.post(url, form).status_code == 302
    simulator = Simulator.objects.get(study=study)
    assert simulator.llm == {"credential": "local", "model": "m", "concurrency": 2}
    again = coordinator_client.post(url, {**form})
    assert again.status_code == 400 and Simulator.objects.count() == 1
    people = coordinator_client.post(url, {**form, "label": "people"})
    assert people.status_code == 400
    run = coordinator_client.post(reverse("fidelity:run_simulator", args=[study.pk, simulator.pk]))
    job = Job.objects.get(kind="fidelity_simulate")
    assert run["Location"] == reverse("job_detail", args=[job.pk])
    assert job.params == {"simulator": simulator.pk}
    embed = {"embed-credential": "local", "embed-model": "e", "embed-concurrency": 1}
    response = coordinator_client.post(reverse("fidelity:embed_requests", args=[study.pk]), embed)
    job = Job.objects.get(kind="fidelity_embed")
    assert response["Location"] == reverse("job_detail", args=[job.pk])
    assert job.params["llm"] == {"credential": "local", "model": "e", "concurrency": 1}


def test_the_demo_study_shows_a_report_with_people_first(coordinator_client: Client) -> None:
    seed(io.StringIO())
    seed(io.StringIO())
    study = Study.objects.get(name=DEMO_STUDY)
    assert study.simulators.count() == 2
    with translation.override("en"):
        page = coordinator_client.get(reverse("fidelity:report", args=[study.pk]))
    text = page.content.decode()
    assert page.status_code == 200
    for task in ("items_talk", "bin_pref", "open_pref", "rec_request", "feedback"):
        assert f'id="task-{task}"' in text
    assert text.index('class="people"') < text.index("demo-llm DI")
    # The verdict rests on the one rule, never on the alt-test alone.
    assert "The LLM can stand in for people" in text or "The LLM cannot stand in for people" in text
    assert 'class="table differences"' in text and "±0.5" in text
    assert "At the simulator&#x27;s" in text or "At people&#x27;s" in text
    assert "Table 2, IMDB" in text
    # The demo's mentions cover their films well: no low-coverage note.
    assert 'class="warning low-coverage"' not in text
    requests = next(task for task in study_report(study) if task.task == "rec_request")
    assert all(row.cell("embedding_diversity").value is not None for row in requests.rows)
    demo_llm = study.simulators.first()
    assert demo_llm is not None
    run = reverse("fidelity:run_simulator", args=[study.pk, demo_llm.pk])
    with translation.override("en"):
        refused = coordinator_client.post(run, follow=True)
    assert refused.content.decode().count("This simulator cannot run") == 1
    assert not Job.objects.filter(kind="fidelity_simulate").exists()
    csv = coordinator_client.get(reverse("fidelity:report_csv", args=[study.pk]))
    assert csv.status_code == 200 and b"demo-llm DI+PP" in csv.content


def test_the_report_shows_each_alt_test_s_winning_rate_and_table_3_s_lines(
    coordinator_client: Client,
) -> None:
    seed(io.StringIO())
    study = Study.objects.get(name=DEMO_STUDY)
    with translation.override("en"):
        text = coordinator_client.get(reverse("fidelity:report", args=[study.pk])).content.decode()
    section = text[text.index('id="task-bin_pref"') : text.index('id="task-open_pref"')]
    bin_pref = next(task for task in study_report(study) if task.task == "bin_pref")
    assert section.count('<table class="table alt-tests">') == 1
    for alt in bin_pref.alt_tests:
        assert alt.winning_rate is not None
        row = f'<th scope="row">{alt.group}</th><td>{alt.winning_rate:.3f}</td>'
        assert row in section
        assert ("passes" if alt.passed else "fails") in section
    frequent = section[section.index("Frequent items") : section.index("Infrequent items")]
    assert "gpt-4, DI+PP: Pearson r (rating, yes-rate) = 0.75 (Table 3, frequent)" in frequent
    infrequent = section[section.index("Infrequent items") :]
    assert "gpt-4, DI: Pearson r (rating, yes-rate) = 0.53 (Table 3, infrequent)" in infrequent


def test_a_low_sample_coverage_is_said_under_the_chao_shen_value() -> None:
    # Three responders naming films 2, 1, 1 times: coverage 0.5, far below 0.8.
    counts = np.array([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    _, chao_shen = entropy_measures(counts, unit=RESPONDERS, resamples=0)
    for language, words in (
        ("en", "the sample coverage 1 − f1/n is 0.50, below 0.8"),
        ("zh-hans", "样本覆盖率 1 − f1/n 为 0.50，低于 0.8"),
    ):
        with translation.override(language):
            cell = _shown_cell(
                Cell("entropy_cs_bits", chao_shen.value, chao_shen.ci, chao_shen.notes)
            )
            html = render_to_string(
                "fidelity/_measures.html",
                {"rows": [ShownRow("sim DI", False, 4, [cell])], "headers": ["H"]},
            )
        note = html[html.index('class="warning low-coverage"') :].split("</small>")[0]
        assert words in note
