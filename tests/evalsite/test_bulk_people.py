"""Adding people from a CSV file: all or nothing, with line and field named."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings

from evalsite import jobs, roles
from evalsite.models import Job
from liveeval.models import Campaign
from tests.annotation.conftest import person


def upload(client: Client, text: str, passwords: str = "show") -> tuple[int, str]:
    client.cookies["django_language"] = "en"
    response = client.post(
        reverse("bulk_add"),
        {"file": SimpleUploadedFile("people.csv", text.encode()), "passwords": passwords},
    )
    return response.status_code, response.content.decode()


def choose_password(path: str, password: str) -> None:
    """Follow a link to choose a password, as its person would, and choose ``password``."""
    person = Client()
    form = person.get(path, follow=True)
    assert form.status_code == 200 and 'name="new_password1"' in form.content.decode()
    done = person.post(
        form.redirect_chain[-1][0], {"new_password1": password, "new_password2": password}
    )
    assert done.status_code == 302, done.content.decode()


@pytest.mark.django_db
def test_people_are_added_with_roles_campaigns_and_links_shown_once(
    coordinator_client: Client,
) -> None:
    campaign = Campaign.objects.create(name="Spring round", today=dt.date(2026, 12, 1))
    status, page = upload(
        coordinator_client,
        "username,email,role,campaign\n"
        "judge7,judge7@example.org,judge,Spring round\n"
        "anno3,,annotator,\n",
    )
    assert status == 200
    judge, annotator = User.objects.get(username="judge7"), User.objects.get(username="anno3")
    assert roles.has_role(judge, roles.JUDGES) and roles.has_role(annotator, roles.ANNOTATORS)
    assert list(campaign.judges.all()) == [judge]
    # Nobody has a password yet: the request hashed none.
    assert not judge.has_usable_password() and not annotator.has_usable_password()
    assert "within 3 days" in page
    links = re.findall(r'<code class="new-password-link">http://testserver([^<]+)</code>', page)
    assert len(links) == 2
    for link, username in zip(links, ("judge7", "anno3"), strict=True):
        choose_password(link, f"{username}-chosen-passw0rd")
        assert Client().login(username=username, password=f"{username}-chosen-passw0rd")
    # A link serves once.
    again = Client().get(links[0], follow=True).content.decode()
    assert "no longer valid" in again


@pytest.mark.django_db
def test_adding_many_people_hashes_no_password_in_the_request(
    coordinator_client: Client, settings: Settings
) -> None:
    # The served hasher, half a second a password: 100 rows hashed here would take 50 s.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    body = "".join(f"crowd{n},,judge,\n" for n in range(100))
    started = time.perf_counter()
    status, page = upload(coordinator_client, f"username,email,role,campaign\n{body}")
    elapsed = time.perf_counter() - started
    assert status == 200 and page.count('class="new-password-link"') == 100
    assert elapsed < 10, elapsed
    assert (
        User.objects.filter(username__startswith="crowd", groups__name=roles.JUDGES).count() == 100
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "line 5, file: the file holds more than 3 people"),
        ("zh-hans", "第 5 行，文件：文件中的人数超过 3，即一个文件最多可添加的人数"),
    ],
)
def test_a_file_over_the_row_cap_is_refused_and_adds_nobody(
    coordinator_client: Client, settings: Settings, language: str, said: str
) -> None:
    settings.PEOPLE_CSV_MAX_ROWS = 3
    body = "".join(f"p{n},,judge,\n" for n in range(4))
    coordinator_client.cookies["django_language"] = language
    response = coordinator_client.post(
        reverse("bulk_add"),
        {
            "file": SimpleUploadedFile("people.csv", f"{HEADER.decode()}{body}".encode()),
            "passwords": "show",
        },
    )
    assert response.status_code == 422
    assert said in response.content.decode()
    assert not User.objects.filter(username__startswith="p").exists()
    settings.PEOPLE_CSV_MAX_ROWS = 4
    assert upload(coordinator_client, f"{HEADER.decode()}{body}")[0] == 200


@pytest.mark.django_db
def test_one_bad_line_adds_nobody_and_names_line_and_field(coordinator_client: Client) -> None:
    person("taken")
    status, page = upload(
        coordinator_client,
        "username,email,role,campaign\n"
        "fine1,,judge,\n"
        "taken,,judge,\n"
        "fine2,not-an-email,jduge,\n"
        "fine3,,judge,No such round\n"
        "fine1,,annotator,\n",
    )
    assert status == 422
    assert "Nobody was added" in page
    for expected in (
        "line 3, username: taken is taken",
        "line 4, email: not-an-email is not an email",
        "line 4, role: &#x27;jduge&#x27; is not a role",
        "line 5, campaign: no open campaign called &#x27;No such round&#x27;",
        "line 6, username: fine1 is taken",
    ):
        assert expected in page
    assert not User.objects.filter(username__startswith="fine").exists()


@pytest.mark.django_db
def test_a_wrong_header_is_refused(coordinator_client: Client) -> None:
    status, page = upload(coordinator_client, "name,mail\nx,y\n")
    assert (
        status == 422
        and "line 1, header: the first line must be username,email,role,campaign" in page
    )


@pytest.mark.django_db
def test_links_are_mailed_by_a_background_job(
    coordinator_client: Client, coordinator: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    queued: list[Job] = []
    monkeypatch.setattr(jobs, "start", queued.append)
    status, page = upload(
        coordinator_client,
        "username,email,role,campaign\nmailme,mailme@example.org,annotator,\n",
        passwords="mail",
    )
    assert status == 200 and "new-password-link" not in page
    # The request stored the account and queued the mailing; it sent nothing itself.
    assert not mail.outbox and len(queued) == 1
    job = jobs.run(queued[0])
    assert job.status == Job.Status.DONE and job.created_by == coordinator
    assert reverse("job_detail", args=[job.pk]) in page
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["mailme@example.org"]
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", str(mail.outbox[0].body))
    assert link is not None
    user = User.objects.get(username="mailme")
    assert not user.has_usable_password()
    choose_password(link.group(1), "mailme-chosen-passw0rd")
    assert Client().login(username="mailme", password="mailme-chosen-passw0rd")


@pytest.mark.django_db
def test_mailing_needs_every_email(coordinator_client: Client) -> None:
    status, page = upload(
        coordinator_client, "username,email,role,campaign\nnomail,,judge,\n", passwords="mail"
    )
    assert status == 422 and "line 2, email: is needed to mail a password link" in page
    assert not User.objects.filter(username="nomail").exists()
    assert not mail.outbox


def upload_bytes(client: Client, body: bytes) -> tuple[int, str]:
    client.cookies["django_language"] = "en"
    response = client.post(
        reverse("bulk_add"),
        {"file": SimpleUploadedFile("people.csv", body), "passwords": "show"},
    )
    return response.status_code, response.content.decode()


HEADER = b"username,email,role,campaign\n"


@pytest.mark.django_db
def test_invalid_utf8_is_named_by_line_and_column(coordinator_client: Client) -> None:
    status, page = upload_bytes(
        coordinator_client, HEADER + b"fine1,,judge,\nfine2,b\xffd@example.org,judge,\n"
    )
    assert status == 422 and "line 3, email: is not UTF-8 text" in page
    assert not User.objects.filter(username__startswith="fine").exists()


@pytest.mark.django_db
def test_nul_is_named_by_line_and_column(coordinator_client: Client) -> None:
    status, page = upload_bytes(coordinator_client, HEADER + b"fine1,,judge,\nfi\x00ne2,,judge,\n")
    assert status == 422 and "line 3, username: cannot be stored" in page and "NUL" in page
    assert not User.objects.filter(username__startswith="fine").exists()


@pytest.mark.django_db
def test_a_huge_cell_is_named_by_line_and_column(coordinator_client: Client) -> None:
    status, page = upload_bytes(
        coordinator_client, HEADER + b"fine1,,judge,\nfine2,,judge," + b"x" * 140_000 + b"\n"
    )
    assert status == 422 and "line 3, campaign: is longer than 131,072 characters" in page
    assert not User.objects.filter(username__startswith="fine").exists()


@pytest.mark.django_db
def test_a_username_too_long_to_store_is_named(coordinator_client: Client) -> None:
    status, page = upload_bytes(coordinator_client, HEADER + b"u" * 151 + b",,judge,\n")
    assert status == 422 and "line 2, username: is longer than 150 characters" in page
    assert not User.objects.filter(username__startswith="uuu").exists()


@pytest.mark.django_db
def test_a_file_over_the_upload_limit_is_refused_unread(
    coordinator_client: Client, settings: Settings
) -> None:
    settings.FORM_UPLOAD_MAX_BYTES = 1024
    rows = b"".join(b"fine%04d,,judge,\n" % n for n in range(200))
    status, page = upload_bytes(coordinator_client, HEADER + rows)
    assert status == 200 and "an upload may be at most 1 KB" in page
    assert not User.objects.filter(username__startswith="fine").exists()


@pytest.mark.django_db
def test_a_look_alike_of_a_taken_username_is_named_by_line(outsider: User) -> None:
    from evalsite.bulk_people import read_people

    text = "username,email,role,campaign\n\u043etto,,judge,\nmаry,,judge,\nzoe,,judge,\n"
    reading = read_people(text.encode(), need_email=False)
    lines = {(problem.line, problem.field): str(problem.message) for problem in reading.problems}
    assert "is taken" in lines[(2, "username")]
    assert "mixes Latin letters" in lines[(3, "username")]


@pytest.mark.django_db
def test_a_large_file_is_checked_in_linear_time(settings: Settings) -> None:
    from evalsite.bulk_people import read_people

    settings.PEOPLE_CSV_MAX_ROWS = 20_000

    def check(rows: int) -> float:
        body = "".join(f"user{n},,judge,\n" for n in range(rows))
        started = time.perf_counter()
        reading = read_people(f"username,email,role,campaign\n{body}".encode(), need_email=False)
        assert len(reading.newcomers) == rows and not reading.problems
        return time.perf_counter() - started

    small, large = check(2_000), check(16_000)
    # 8× the rows: linear is about 8× the time; the union per line made it about 64×.
    assert large < small * 20, (small, large)
