"""People added from a CSV file (``username,email,role,campaign``), all or nothing.

Every line is checked before anyone is created; a problem names its line and
field, and then nobody is added. A file holds at most ``PEOPLE_CSV_MAX_ROWS`` people
(``EVALSITE_PEOPLE_CSV_MAX_ROWS``, 5,000 by default); a larger one is refused at the first
line over it, unread beyond it.

New people get no password: each chooses their own through a link, shown once to the
coordinator to hand out or mailed by a background job (`MAIL_JOB`) through the configured
email backend. A password is hashed (PBKDF2, half a second on purpose) once per person, in
that person's own request, never for the whole file in the coordinator's: 40,000 rows made
the request hash for hours. The links are those of a password reset, valid for
``PASSWORD_RESET_TIMEOUT``; after that, whoever has a mail address asks for a new one on the
sign-in page, and a coordinator sets a password for anyone else in the admin.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, User
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage, get_connection
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from evalsite import jobs, roles, usernames
from evalsite.agreement.phrases import Phrase
from evalsite.invitations import Team, teams_for
from evalsite.job_descriptions import JobDescription, count, seconds
from evalsite.jobs import JobContext
from evalsite.models import Invitation, Job
from evalsite.storable_text import unstorable

COLUMNS = ("username", "email", "role", "campaign")
USERNAME_LENGTH = User._meta.get_field("username").max_length or 150
ROLE_LABELS = dict(Invitation.ROLE_CHOICES)
ROLE_WORDS = {
    "judge": roles.JUDGES,
    "judges": roles.JUDGES,
    "annotator": roles.ANNOTATORS,
    "annotators": roles.ANNOTATORS,
    "coordinator": roles.COORDINATORS,
    "coordinators": roles.COORDINATORS,
}


@dataclass(frozen=True)
class Problem:
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return _("line %(line)s, %(field)s: %(message)s") % {
            "line": self.line,
            "field": self.field,
            "message": self.message,
        }


@dataclass(frozen=True)
class Newcomer:
    line: int
    username: str
    email: str
    role: str
    team: Team | None = None
    campaign_id: int | None = None
    campaign_name: str = ""


MAIL_JOB = "people.mail_links"


@dataclass
class Added:
    """Who was added; ``link`` (to choose a password) is set only when it is to be shown once."""

    username: str
    role: str
    campaign: str
    link: str = ""
    mailed: bool = False


@dataclass
class AddedPeople:
    """Everyone added, and the job mailing their links when they are mailed."""

    people: list[Added]
    mail_job: Job | None = None

    @property
    def link_days(self) -> int:
        """For how many days the links work."""
        return max(1, round(settings.PASSWORD_RESET_TIMEOUT / 86400))


@dataclass
class Reading:
    newcomers: list[Newcomer] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _campaign(role: str, name: str) -> tuple[Team, int] | None:
    for team in teams_for(role):
        for pk, label in team.choices():
            if label == name:
                return team, pk
    return None


def read_people(raw: bytes, *, need_email: bool) -> Reading:
    """Every line of the CSV checked; ``problems`` is empty only when all can be added.

    Text that is not UTF-8, a cell too long to read and NUL or lone surrogates are problems
    with their line and column, like any other."""
    reading = Reading()
    text = _decoded(raw, reading.problems)
    if text is None:
        return reading
    rows = csv.reader(io.StringIO(text))
    records = _records(rows, text, reading.problems)
    header = [cell.strip().lower() for cell in next(records, [])]
    if reading.problems:
        return reading
    if tuple(header[: len(COLUMNS)]) != COLUMNS:
        expected = ",".join(COLUMNS)
        reading.problems.append(
            Problem(1, _("header"), _("the first line must be %(columns)s") % {"columns": expected})
        )
        return reading
    # Skeletons of every username there is and of the file's earlier lines: one set, added to
    # line by line (a new union per line made a 40,000-line file take minutes).
    known = usernames.taken_skeletons()
    number = rows.line_num + 1
    people = 0
    for row in records:
        line, number = number, rows.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        people += 1
        if people > settings.PEOPLE_CSV_MAX_ROWS:
            reading.problems.append(Problem(line, _("file"), _over_the_cap()))
            break
        cells = dict(zip(COLUMNS, (cell.strip() for cell in row + [""] * 4), strict=False))
        newcomer = _check_line(line, cells, need_email, known, reading.problems)
        if newcomer is not None:
            reading.newcomers.append(newcomer)
        known.add(usernames.skeleton(cells["username"]))
    if not reading.newcomers and not reading.problems:
        reading.problems.append(Problem(2, _("file"), _("there is nobody to add")))
    return reading


def _over_the_cap() -> str:
    limit = settings.PEOPLE_CSV_MAX_ROWS
    return _(
        "the file holds more than %(limit)s people, the most one file may add; split it into "
        "files of at most %(limit)s"
    ) % {"limit": f"{limit:,}"}


def _column_of(line: str, bad: Callable[[str], bool]) -> str:
    """The column of the first cell of ``line`` (split at commas) that is ``bad``."""
    for index, cell in enumerate(line.split(",")):
        if bad(cell):
            return COLUMNS[index] if index < len(COLUMNS) else _("file")
    return _("file")


def _decoded(raw: bytes, problems: list[Problem]) -> str | None:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        number = raw.count(b"\n", 0, error.start) + 1
        line = raw.split(b"\n")[number - 1].decode("utf-8", "replace")
        column = _column_of(line, lambda cell: "\ufffd" in cell)
        problems.append(Problem(number, column, _("is not UTF-8 text; save the file as CSV UTF-8")))
        return None


def _records(rows: Iterator[list[str]], text: str, problems: list[Problem]) -> Iterator[list[str]]:
    """The CSV's rows until one cannot be read (a cell over the CSV limit), which becomes a
    problem with its line and column."""
    while True:
        try:
            yield next(rows)
        except StopIteration:
            return
        except csv.Error:
            number = getattr(rows, "line_num", 1) or 1
            lines = text.splitlines()
            line = lines[number - 1] if number <= len(lines) else ""
            problems.append(Problem(number, _column_of(line, _too_long), _too_long_message()))
            return


def _too_long(cell: str) -> bool:
    return len(cell) > csv.field_size_limit()


def _too_long_message() -> str:
    return _("is longer than %(limit)s characters") % {"limit": f"{csv.field_size_limit():,}"}


def _check_line(
    number: int, cells: dict[str, str], need_email: bool, taken: set[str], problems: list[Problem]
) -> Newcomer | None:
    before = len(problems)
    for column, cell in cells.items():
        if (why := unstorable(cell)) is not None:
            problems.append(Problem(number, column, _("cannot be stored: %(why)s") % {"why": why}))
    if len(problems) > before:
        return None
    username, email = cells["username"], cells["email"]
    if len(username) > USERNAME_LENGTH:
        problems.append(
            Problem(
                number,
                "username",
                _("is longer than %(limit)d characters") % {"limit": USERNAME_LENGTH},
            )
        )
    elif not username:
        problems.append(Problem(number, "username", _("is empty")))
    elif usernames.skeleton(username) in taken:
        problems.append(Problem(number, "username", _("%(name)s is taken") % {"name": username}))
    elif usernames.mixes_scripts(username):
        found = usernames.problem(username, set())
        problems.append(Problem(number, "username", found or ""))
    else:
        try:
            UnicodeUsernameValidator()(username)
        except ValidationError:
            problems.append(
                Problem(number, "username", _("use letters, digits and @ . + - _ only"))
            )
    if email:
        try:
            validate_email(email)
        except ValidationError:
            problems.append(
                Problem(number, "email", _("%(value)s is not an email") % {"value": email})
            )
    elif need_email:
        problems.append(Problem(number, "email", _("is needed to mail a password link")))
    role = ROLE_WORDS.get(cells["role"].lower())
    if role is None:
        problems.append(
            Problem(
                number,
                "role",
                _("%(value)r is not a role; write judge, annotator or coordinator")
                % {"value": cells["role"]},
            )
        )
    named = _campaign(role, cells["campaign"]) if role and cells["campaign"] else None
    if role and cells["campaign"] and named is None:
        problems.append(
            Problem(
                number,
                "campaign",
                _("no open campaign called %(name)r takes this role") % {"name": cells["campaign"]},
            )
        )
    if len(problems) > before or role is None:
        return None
    team, campaign_id = named if named is not None else (None, None)
    return Newcomer(number, username, email, role, team, campaign_id, cells["campaign"])


def add_people(newcomers: list[Newcomer], *, mail: bool, site: str, by: Any = None) -> AddedPeople:
    """Create everyone in one transaction, with no usable password (nothing is hashed here);
    then either each person's link to choose a password, to show once, or the job that
    mails the links, started once all are stored."""
    with transaction.atomic():
        users = User.objects.bulk_create(
            User(username=newcomer.username, email=newcomer.email, password=make_password(None))
            for newcomer in newcomers
        )
        groups = {
            role: Group.objects.get_or_create(name=role)[0]
            for role in {newcomer.role for newcomer in newcomers}
        }
        membership = User.groups.through
        membership.objects.bulk_create(
            membership(user_id=user.pk, group_id=groups[newcomer.role].pk)
            for user, newcomer in zip(users, newcomers, strict=True)
        )
        for user, newcomer in zip(users, newcomers, strict=True):
            if newcomer.team is not None and newcomer.campaign_id is not None:
                newcomer.team.join(user, newcomer.campaign_id)
    added = [
        Added(
            newcomer.username,
            str(ROLE_LABELS[newcomer.role]),
            newcomer.campaign_name,
            "" if mail else site + choose_password_path(user),
            mail,
        )
        for user, newcomer in zip(users, newcomers, strict=True)
    ]
    if not mail:
        return AddedPeople(added)
    params = {
        "users": [user.pk for user in users],
        "site": site,
        "language": translation.get_language() or settings.LANGUAGE_CODE,
    }
    job = jobs.create(MAIL_JOB, params, user=by)
    jobs.start(job)
    return AddedPeople(added, job)


def choose_password_path(user: User) -> str:
    """The path of ``user``'s link to choose a password (a password reset's)."""
    return reverse(
        "password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )


def _message(user: User, site: str) -> EmailMessage:
    values: dict[str, Any] = {"name": user.username, "link": site + choose_password_path(user)}
    return EmailMessage(
        _("Your EvalSite account"),
        _(
            "Hello %(name)s,\n\nAn EvalSite account was made for you. Choose your password "
            "here:\n%(link)s\n"
        )
        % values,
        None,
        [user.email],
    )


def describe_mailing(job: Job) -> JobDescription:
    name = _("Mailing new people their links")
    if job.status != Job.Status.DONE:
        return JobDescription(name, counted=False)
    mailed = count(job.result.get("mailed"))
    sentence = ngettext(
        "%(count)s person was mailed a link to choose a password, in %(time)s.",
        "%(count)s people were mailed a link to choose a password, in %(time)s.",
        mailed,
    ) % {"count": mailed, "time": seconds(job)}
    return JobDescription(name, sentence, counted=False)


# Mails go out over one connection, this many between checkpoints.
MAIL_BATCH = 50


@jobs.job_kind(MAIL_JOB, describe=describe_mailing)
def mail_links(context: JobContext) -> dict[str, Any]:
    """params: users (ids, in order), site (the scheme and host the links start with), language
    (the coordinator's, which the mails are written in). A resumed job goes on after the last
    batch it recorded as sent."""
    ids: Sequence[int] = context.params["users"]
    site = str(context.params["site"])
    sent = int(context.checkpoint.get("sent", 0))
    sending = Phrase(gettext_noop("Mailing %(count)s people"), count=len(ids))
    context.progress(sent, len(ids), sending, force=True)
    with translation.override(context.params.get("language")), get_connection() as connection:
        for start in range(sent, len(ids), MAIL_BATCH):
            batch = ids[start : start + MAIL_BATCH]
            people = User.objects.in_bulk(batch)
            connection.send_messages(
                [_message(people[pk], site) for pk in batch if pk in people and people[pk].email]
            )
            sent = start + len(batch)
            context.save_checkpoint(done=sent, sent=sent)
    return {"mailed": len(ids)}
