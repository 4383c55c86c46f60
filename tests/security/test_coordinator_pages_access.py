"""Who may use the coordinator's pages and forms: every page, every role, one matrix.

Anonymous visitors go to the sign-in page, and so does a coordinator deactivated after signing
in (their session no longer signs them in). A judge, an annotator, a participant and someone
with no role are refused with 403, and nothing they send changes anything. A coordinator
reaches every page and every form. Deactivating someone from either kind of roster closes the
WebSocket they already have open.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation import queue
from annotation.imports.rows import import_rows
from annotation.models import Assignment, Catalog
from annotation.models import Campaign as AnnotationCampaign
from annotation.rubrics import default_rubric
from evalsite import jobs, roles
from evalsite.models import Invitation, Job
from evalsite.socket_revocation import REVOKED_CODE
from liveeval import campaigns
from liveeval.models import Campaign as LiveCampaign
from liveeval.models import ChatSession, DialogueSystem
from testing.servers import free_port
from tests.annotation.conftest import dialogue
from tests.conftest import logged_in, make_user
from tests.liveeval.conftest import TODAY, make_system, make_task
from tests.liveeval.test_consumers import connect, receive_until
from tests.security.test_sockets import closed_with

# Jobs are queued, not run: the matrix is about who may start them.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_systems")]


@dataclass
class Study:
    """One of everything the coordinator's pages act on."""

    annotation: AnnotationCampaign
    live: LiveCampaign
    http_system: DialogueSystem
    echo_system: DialogueSystem
    spare_system: DialogueSystem
    invitation: Invitation
    job: Job
    target: User
    task_pk: int = field(init=False)
    transcript_pk: int = field(init=False)

    def __post_init__(self) -> None:
        self.task_pk = self.live.tasks.get().pk
        self.transcript_pk = self.annotation.transcripts.get().pk

    def snapshot(self) -> tuple[object, ...]:
        """Everything a page of the matrix could change."""
        for record in (self.annotation, self.live, self.http_system, self.invitation, self.job):
            record.refresh_from_db()
        self.target.refresh_from_db()
        return (
            AnnotationCampaign.objects.count(),
            LiveCampaign.objects.count(),
            DialogueSystem.objects.count(),
            Invitation.objects.count(),
            User.objects.count(),
            Catalog.objects.count(),
            Job.objects.count(),
            ChatSession.objects.count(),
            (self.annotation.name, self.annotation.archived_at),
            (self.annotation.transcripts.get().gold,),
            (self.live.name, self.live.archived_at, self.live.task_languages),
            (self.http_system.name, self.http_system.enabled),
            self.invitation.revoked_at,
            self.target.is_active,
            self.job.status,
        )


@pytest.fixture
def study(fake_systems: None) -> Study:
    annotation = AnnotationCampaign.objects.create(name="Study", rubric=default_rubric())
    import_rows(annotation, [dialogue("t001")])
    target = make_user("tess", roles.JUDGES, roles.ANNOTATORS)
    annotation.annotators.add(target)
    echo = make_system("test-echo", "echo-x", "Echo X")
    live = LiveCampaign.objects.create(name="Live", today=TODAY, lang="bi", judgements_per_pair=1)
    live.systems.set([echo])
    live.tasks.set([make_task("flight-x")])
    live.judges.set([target])
    boss = make_user("bess", roles.COORDINATORS)
    return Study(
        annotation=annotation,
        live=live,
        http_system=DialogueSystem.objects.create(
            slug="team-a",
            name="Team A",
            alias="Team A alias",
            kind="http",
            config={"endpoint": f"http://127.0.0.1:{free_port()}/chat"},
        ),
        echo_system=echo,
        spare_system=make_system("reference", "ref-spare", "Spare"),
        invitation=Invitation.objects.create(
            role=roles.JUDGES, expires_at=timezone.now() + dt.timedelta(days=1)
        ),
        job=Job.objects.create(
            kind="testing.count", params={"total": 3}, status=Job.Status.FAILED, created_by=boss
        ),
        target=target,
    )


@pytest.fixture(autouse=True)
def jobs_are_queued_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "start", lambda job: job)


def upload(name: str, body: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, body)


def live_design(s: Study, name: str) -> dict[str, object]:
    return {
        "name": name,
        "systems": [s.echo_system.pk],
        "tasks": [s.task_pk],
        "judges": [s.target.pk],
        "judgements_per_pair": 1,
        "max_turns": 20,
        "today": "2026-12-01",
        "lang": "bi",
        "reply_timeout": 10,
        "seed": 1,
    }


def annotation_settings(s: Study, name: str) -> dict[str, object]:
    return {
        "name": name,
        "rubric": s.annotation.rubric_id,
        "annotations_per_item": 3,
        "instructions": "",
        "item_order": "import",
        "hold_minutes": 30,
        "alt_test_epsilon": 0.15,
    }


def gold_answer(s: Study) -> dict[str, object]:
    transcript = s.annotation.transcripts.get()
    dimension = next(d for d in s.annotation.rubric.dimensions.all() if d.applies_to(transcript))
    return {f"gold_{dimension.key}": dimension.scale_max}


@dataclass(frozen=True)
class Request:
    name: str
    method: str
    url: Callable[[Study], str]
    data: Callable[[Study], dict[str, Any]] = lambda s: {}
    # What a coordinator gets: the page, or the redirect after a form did its work.
    allowed: frozenset[int] = frozenset({200})


def get(name: str, url: Callable[[Study], str]) -> Request:
    return Request(name, "get", url)


def post(
    name: str,
    url: Callable[[Study], str],
    data: Callable[[Study], dict[str, Any]] = lambda s: {},
    allowed: frozenset[int] = frozenset({302}),
) -> Request:
    return Request(name, "post", url, data, allowed)


def named(name: str, *args: Callable[[Study], int], query: str = "") -> Callable[[Study], str]:
    return lambda s: reverse(name, args=[arg(s) for arg in args]) + query


ANNOTATION = lambda s: s.annotation.pk  # noqa: E731
LIVE = lambda s: s.live.pk  # noqa: E731
HTTP = lambda s: s.http_system.pk  # noqa: E731

REQUESTS = [
    # Systems.
    get("system-list", named("liveeval:system_list")),
    get("system-new", named("liveeval:system_new", query="?kind=http")),
    get("system-new-llm", named("liveeval:system_new", query="?kind=openai")),
    get("system-new-builtin", named("liveeval:system_new", query="?kind=builtin")),
    post(
        "system-new",
        named("liveeval:system_new", query="?kind=http"),
        lambda s: {"slug": "team-b", "endpoint": "http://team-b.example/chat", "timeout": "5"},
    ),
    get("system-edit", named("liveeval:system_edit", HTTP)),
    post(
        "system-edit",
        named("liveeval:system_edit", HTTP),
        lambda s: {
            "slug": "team-a",
            "name": "Team A v2",
            "alias": "System Q",
            "endpoint": "https://a.example/c",
        },
    ),
    post("system-test", named("liveeval:system_test", lambda s: s.echo_system.pk)),
    post("system-disable", named("liveeval:system_toggle", HTTP)),
    post("system-delete", named("liveeval:system_delete", lambda s: s.spare_system.pk)),
    # People.
    get("invitations", named("invitations")),
    post(
        "invitation-create",
        named("invitations"),
        lambda s: {"role": roles.JUDGES, "team": "", "max_uses": 3, "days": 7},
    ),
    post("invitation-withdraw", named("invitation_revoke", lambda s: s.invitation.pk)),
    get("bulk-add", named("bulk_add")),
    post(
        "bulk-add",
        named("bulk_add"),
        lambda s: {
            "file": upload("people.csv", b"username,email,role,campaign\nnewbie,,judges,\n"),
            "passwords": "show",
        },
        allowed=frozenset({200}),
    ),
    get("annotation-roster", named("annotation:roster", ANNOTATION)),
    get("live-roster", named("liveeval:campaign_roster", LIVE)),
    post(
        "deactivate",
        named("deactivate_person", lambda s: s.target.pk),
        lambda s: {"next": reverse("liveeval:campaign_detail", args=[s.live.pk])},
    ),
    # Annotation campaigns.
    get("annotation-new", named("annotation:campaign_new")),
    post(
        "annotation-new",
        named("annotation:campaign_new"),
        lambda s: annotation_settings(s, "Fresh study"),
    ),
    get("annotation-settings", named("annotation:settings", ANNOTATION)),
    post(
        "annotation-settings",
        named("annotation:settings", ANNOTATION),
        lambda s: annotation_settings(s, "Renamed"),
    ),
    get("gold-items", named("annotation:gold_items", ANNOTATION)),
    get("gold-item", named("annotation:gold_item", ANNOTATION, lambda s: s.transcript_pk)),
    post(
        "gold-item",
        named("annotation:gold_item", ANNOTATION, lambda s: s.transcript_pk),
        lambda s: {"is_gold": "on", **gold_answer(s)},
    ),
    get("annotation-copy", named("annotation:clone", ANNOTATION)),
    post("annotation-copy", named("annotation:clone", ANNOTATION), lambda s: {"name": "Copy"}),
    post("annotation-archive", named("annotation:archive", ANNOTATION)),
    post("annotation-restore", named("annotation:restore", ANNOTATION)),
    # Live campaigns.
    get("live-new", named("liveeval:campaign_new")),
    post("live-new", named("liveeval:campaign_new"), lambda s: live_design(s, "Round two")),
    get("live-edit", named("liveeval:campaign_edit", LIVE)),
    post("live-edit", named("liveeval:campaign_edit", LIVE), lambda s: live_design(s, "Renamed")),
    get("live-copy", named("liveeval:campaign_clone", LIVE)),
    post("live-copy", named("liveeval:campaign_clone", LIVE), lambda s: {"name": "Live copy"}),
    post("live-archive", named("liveeval:campaign_archive", LIVE)),
    post("live-restore", named("liveeval:campaign_restore", LIVE)),
    post(
        "live-task-languages",
        named("liveeval:campaign_task_languages", LIVE),
        lambda s: {f"lang_{s.task_pk}": "en"},
    ),
    # Data.
    get("catalogs", named("annotation:catalogs")),
    post(
        "catalogs",
        named("annotation:catalogs"),
        lambda s: {
            "name": "films",
            "csv_file": upload("films.csv", b"id,name,year,attributes\nm1,Heat,1995,crime\n"),
        },
    ),
    get("import", named("annotation:import_transcripts")),
    post(
        "import",
        named("annotation:import_transcripts"),
        lambda s: {
            "new_campaign": "Uploaded",
            "format": "jsonl",
            "file": upload("t.jsonl", json.dumps(dialogue("u1")).encode()),
        },
    ),
    # Jobs.
    get("jobs", named("job_list")),
    get("job", named("job_detail", lambda s: s.job.pk)),
    post("job-resume", named("job_resume", lambda s: s.job.pk)),
]


def deactivated_coordinator() -> Client:
    """A coordinator who signed in, then was deactivated."""
    user = make_user("dora", roles.COORDINATORS)
    client = logged_in(user)
    user.is_active = False
    user.save(update_fields=["is_active"])
    return client


CLIENTS: dict[str, Callable[[], Client]] = {
    "anonymous": Client,
    "judge": lambda: logged_in(make_user("jade", roles.JUDGES)),
    "annotator": lambda: logged_in(make_user("anna", roles.ANNOTATORS)),
    "participant": lambda: logged_in(make_user("pia", roles.PARTICIPANTS)),
    "no role": lambda: logged_in(make_user("otto")),
    "coordinator": lambda: logged_in(make_user("cora", roles.COORDINATORS)),
    "deactivated coordinator": deactivated_coordinator,
}
SIGNED_OUT = {"anonymous", "deactivated coordinator"}


def outcome(role: str, request_: Request, response: Any) -> bool:
    """Whether ``role`` got what it should from the page."""
    if role == "coordinator":
        return response.status_code in request_.allowed
    if role in SIGNED_OUT:
        return response.status_code == 302 and response["Location"].startswith(reverse("login"))
    return response.status_code == 403


@pytest.mark.parametrize("role", list(CLIENTS))
def test_only_coordinators_use_the_coordinator_pages(role: str, study: Study) -> None:
    """Every page and form for this role, each from the same starting point (a savepoint that
    is rolled back), so that no request depends on another's effects."""
    client = CLIENTS[role]()
    wrong = []
    for request_ in REQUESTS:
        with transaction.atomic():
            before = study.snapshot()
            url = request_.url(study)
            response = getattr(client, request_.method)(url, request_.data(study))
            if not outcome(role, request_, response):
                wrong.append(f"{request_.method.upper()} {url}: {response.status_code}")
            elif role != "coordinator" and study.snapshot() != before:
                wrong.append(f"{request_.method.upper()} {url} changed something")
            transaction.set_rollback(True)
    assert wrong == []


def test_a_coordinators_forms_do_their_work(study: Study) -> None:
    """The matrix's coordinator posts are real: each changed what its form is for."""
    client = logged_in(make_user("cora", roles.COORDINATORS))
    for request_ in REQUESTS:
        if request_.method == "post":
            client.post(request_.url(study), request_.data(study))
    study.snapshot()
    assert DialogueSystem.objects.filter(slug="team-b").exists()
    assert not DialogueSystem.objects.filter(pk=study.spare_system.pk).exists()
    assert study.http_system.name == "Team A v2" and not study.http_system.enabled
    assert study.invitation.revoked_at is not None and not study.target.is_active
    assert User.objects.filter(username="newbie").exists()
    assert AnnotationCampaign.objects.filter(name__in=["Fresh study", "Copy"]).count() == 2
    assert study.annotation.name == "Renamed" and study.annotation.archived_at is None
    assert LiveCampaign.objects.filter(name__in=["Round two", "Live copy"]).count() == 2
    assert study.live.name == "Renamed" and study.live.task_languages == {str(study.task_pk): "en"}
    assert Catalog.objects.filter(name="films").exists()
    assert Job.objects.filter(kind="annotation.import_transcripts").exists()
    assert study.job.status == Job.Status.PENDING


# Deactivating from a roster closes the person's open socket.


@database_sync_to_async
def open_chat(study: Study) -> ChatSession:
    """``study.target`` in an open conversation of the live campaign."""
    campaigns.open_campaign(study.live)
    session = study.live.sessions.get(user=study.target)
    session.status = ChatSession.Status.OPEN
    session.save(update_fields=["status"])
    return session


@database_sync_to_async
def press_deactivate(roster_page: str, part: str, person: User) -> int:
    """Press the person's Deactivate button on the roster, as the coordinator's browser would."""
    client = logged_in(make_user("cora", roles.COORDINATORS))
    button = reverse("deactivate_person", args=[person.pk])
    assert f'action="{button}"' in client.get(part).content.decode()
    return client.post(button, {"next": roster_page}).status_code


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("roster", ["live", "annotation"])
async def test_deactivating_from_a_roster_closes_the_persons_open_socket(
    roster: str, study: Study
) -> None:
    session = await open_chat(study)
    connected, communicator = await connect(study.target, session)
    assert connected
    await receive_until(communicator, "chat-log")
    if roster == "live":
        page = reverse("liveeval:campaign_detail", args=[study.live.pk])
        part = reverse("liveeval:campaign_roster", args=[study.live.pk])
    else:
        held = await database_sync_to_async(queue.next_for)(study.target, study.annotation)
        assert held is not None
        page = reverse("annotation:dashboard", args=[study.annotation.pk])
        part = reverse("annotation:roster", args=[study.annotation.pk])

    assert await press_deactivate(page, part, study.target) == 302
    assert await closed_with(communicator) == REVOKED_CODE
    await communicator.disconnect()
    stored = await database_sync_to_async(ChatSession.objects.get)(pk=session.pk)
    assert stored.end_reason == ChatSession.EndReason.ABANDONED
    if roster == "annotation":
        still_held = Assignment.objects.filter(annotator=study.target, status="held").exists
        assert not await database_sync_to_async(still_held)()
