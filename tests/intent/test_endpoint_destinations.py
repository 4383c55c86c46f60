"""Where a team's endpoint may lead, what the team is told when it fails, and that a run always
ends: no call to a non-public address unless the operator allows it, one reading for every
failure, and a failed run that does not stay "running" nor count against the quota."""

from __future__ import annotations

import ipaddress
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from pytest_django.fixtures import Settings

from evalsite import jobs
from evalsite.endpoint_addresses import AddressRefused, PublicAddressTransport, is_allowed
from evalsite.models import Job
from intent import submissions
from intent.endpoint.job import start_endpoint_run
from intent.endpoint.protocol import Cause
from intent.models import Submission, Team
from tests.conftest import logged_in

pytestmark = pytest.mark.django_db


class TeamServer:
    """A team's server on this host: answers every item "weather", records each Host header."""

    def __init__(self) -> None:
        self.hosts: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                server.hosts.append(self.headers["Host"])
                asked = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                items = asked["sentencesList"]
                body = json.dumps(
                    {"resultsList": [{"id": item["id"], "result": "weather"} for item in items]}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_port
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def team_server() -> Iterator[TeamServer]:
    server = TeamServer()
    yield server
    server.stop()


def resolver(*addresses: str) -> Any:
    return lambda host, port: list(addresses)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.9",
        "192.168.1.1",
        "169.254.169.254",
        "100.100.100.200",
        "0.0.0.0",
        "::1",
        "fd00:ec2::254",
        "fe80::1",
        "::ffff:127.0.0.1",
        "64:ff9b::a01:203",
        "2002:7f00:1::1",
        "224.0.0.1",
    ],
)
def test_loopback_private_link_local_and_metadata_addresses_are_refused(address: str) -> None:
    assert not is_allowed(ipaddress.ip_address(address), [])


def test_public_addresses_and_the_operators_networks_are_allowed() -> None:
    assert is_allowed(ipaddress.ip_address("93.184.216.34"), [])
    assert is_allowed(ipaddress.ip_address("2606:2800:220:1::1"), [])
    allowed = [ipaddress.ip_network("127.0.0.1/32")]
    assert is_allowed(ipaddress.ip_address("127.0.0.1"), allowed)
    assert not is_allowed(ipaddress.ip_address("127.0.0.2"), allowed)


def test_every_resolved_address_is_checked_when_the_request_is_made(
    team_server: TeamServer,
) -> None:
    # A name with one public and one private address is refused as a whole.
    transport = PublicAddressTransport(resolver("93.184.216.34", "127.0.0.1"))
    with httpx.Client(transport=transport) as client, pytest.raises(AddressRefused) as refused:
        client.post(f"http://team.example:{team_server.port}/", json={})
    assert "127.0.0.1" in str(refused.value)
    assert team_server.hosts == []


def test_an_allowed_name_is_called_at_the_checked_address_under_its_own_host_name(
    team_server: TeamServer, settings: Settings
) -> None:
    settings.ENDPOINT_PRIVATE_NETWORKS = ["127.0.0.1/32"]
    transport = PublicAddressTransport(resolver("127.0.0.1"))
    with httpx.Client(transport=transport) as client:
        response = client.post(
            f"http://team.example:{team_server.port}/", json={"sentencesList": []}
        )
    assert response.status_code == 200
    assert team_server.hosts == [f"team.example:{team_server.port}"]


def run_against(team: Team, participant: User, url: str) -> tuple[Submission, Job]:
    team.endpoint_url = url
    team.save()
    submission, job = start_endpoint_run(team, participant, batch_size=6)
    job = jobs.run(job)
    submission.refresh_from_db()
    return submission, job


def test_a_run_calls_no_loopback_endpoint_unless_the_operator_allows_it(
    team: Team,
    participant: User,
    team_server: TeamServer,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The team's name resolves to this host, as a name of the team's own choosing could.
    monkeypatch.setattr(
        "intent.endpoint.job.endpoint_transport",
        lambda: PublicAddressTransport(resolver("127.0.0.1")),
    )
    url = f"http://team.example:{team_server.port}/"
    settings.ENDPOINT_PRIVATE_NETWORKS = []
    refused, job = run_against(team, participant, url)
    assert job.status == Job.Status.DONE, job.errors
    assert team_server.hosts == []
    assert {batch["cause"] for batch in refused.failed_batches} == {Cause.REFUSED_ADDRESS}
    assert refused.status == Submission.Status.SCORED and refused.public_f == 0.0

    settings.ENDPOINT_PRIVATE_NETWORKS = ["127.0.0.1/32"]
    scored, job = run_against(team, participant, url)
    assert scored.failed_batches == [] and len(team_server.hosts) == 2


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/", "http://[::1]:9/", "http://localhost/"])
@pytest.mark.parametrize(("language", "said"), [("en", "public"), ("zh-hans", "公开")])
def test_the_endpoint_form_refuses_a_written_non_public_address(
    team: Team, participant: User, url: str, language: str, said: str, settings: Settings
) -> None:
    client = logged_in(participant)
    client.cookies["django_language"] = language
    response = client.post(
        reverse("intent:endpoint", args=[team.track.pk]), {"endpoint_url": url}, follow=True
    )
    team.refresh_from_db()
    assert team.endpoint_url == ""
    page = response.content.decode()
    assert said in page or "this server" in page or "服务器本身" in page
    settings.ENDPOINT_PRIVATE_NETWORKS = ["127.0.0.0/8", "::1/128"]
    if "localhost" not in url:
        client.post(reverse("intent:endpoint", args=[team.track.pk]), {"endpoint_url": url})
        team.refresh_from_db()
        assert team.endpoint_url == url


FAILED = [
    {"batch": 1, "items": 6, "cause": Cause.HTTP_STATUS, "detail": "403"},
    {"batch": 2, "items": 6, "cause": Cause.UNREACHABLE, "detail": "ConnectError: refused"},
    {"batch": 3, "items": 6, "cause": Cause.LATE, "detail": "4"},
    {"batch": 4, "items": 6, "cause": Cause.REFUSED_ADDRESS, "detail": "db resolves to 10.0.0.5"},
]


@pytest.mark.parametrize(
    ("language", "same"), [("en", "no usable answer"), ("zh-hans", "没有可用的回答")]
)
def test_the_team_reads_the_same_words_for_every_failure_and_the_coordinator_the_cause(
    team: Team, participant: User, coordinator: User, language: str, same: str
) -> None:
    submission = Submission.objects.create(
        team=team, submitted_by=participant, source=Submission.Source.ENDPOINT
    )
    submission.failed_batches = FAILED
    submission.save()
    url = reverse("intent:submission", args=[submission.pk])
    team_client = logged_in(participant)
    team_client.cookies["django_language"] = language
    page = team_client.get(url).content.decode()
    listed = page[page.index('id="failed-batches"') : page.index("</div>", page.index("failed-"))]
    assert listed.count(same) == 4
    for detail in ("403", "ConnectError", "10.0.0.5", "4 s", "HTTP", "refused"):
        assert detail not in listed
    coordinator_client = logged_in(coordinator)
    coordinator_client.cookies["django_language"] = language
    shown = coordinator_client.get(url).content.decode()
    for detail in ("403", "ConnectError: refused", "10.0.0.5"):
        assert detail in shown
    assert same not in shown


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "stopped before it could be scored"), ("zh-hans", "在评分之前停止")],
)
def test_a_run_that_breaks_ends_failed_in_the_readers_language_and_costs_no_quota(
    team: Team,
    participant: User,
    monkeypatch: pytest.MonkeyPatch,
    settings: Settings,
    language: str,
    said: str,
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RecursionError("maximum recursion depth exceeded in secret/path.py")

    monkeypatch.setattr("intent.endpoint.job.send", broken)
    quota = submissions.quota_left(team)
    submission, job = run_against(team, participant, "https://team.example.org/")
    assert job.status == Job.Status.FAILED
    assert submission.status == Submission.Status.FAILED
    assert submissions.quota_left(team) == quota
    client = logged_in(participant)
    client.cookies["django_language"] = language
    page = client.get(reverse("intent:submission", args=[submission.pk])).content.decode()
    assert said in page
    job_page = client.get(reverse("job_detail", args=[job.pk])).content.decode()
    assert "secret/path.py" not in job_page and "RecursionError" not in job_page
    assert ("error of this site" if language == "en" else "本站自身") in job_page


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "stopped before it could be scored"), ("zh-hans", "在评分之前停止")],
)
def test_a_run_whose_worker_keeps_dying_ends_failed_and_costs_no_quota(
    team: Team, participant: User, language: str, said: str
) -> None:
    team.endpoint_url = "https://team.example.org/"
    team.save()
    quota = submissions.quota_left(team)
    submission, job = start_endpoint_run(team, participant)
    assert submissions.quota_left(team) == quota - 1
    # Killed as often as workers restart a job: nobody will run it again by themselves.
    Job.objects.filter(pk=job.pk).update(status=Job.Status.INTERRUPTED, attempts=jobs.MAX_ATTEMPTS)
    client = logged_in(participant)
    client.cookies["django_language"] = language
    page = client.get(reverse("intent:submission", args=[submission.pk])).content.decode()
    assert said in page
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert submissions.quota_left(team) == quota
