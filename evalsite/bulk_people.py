"""People added from a CSV file (``username,email,role,campaign``), all or nothing.

Every line is checked before anyone is created; a problem names its line and
field, and then nobody is added. New people get a password shown once to the
coordinator, or a mail with a link to set their own, sent through the
configured email backend.
"""

from __future__ import annotations

import csv
import io
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import Group, User
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from evalsite import roles, usernames
from evalsite.invitations import Team, teams_for
from evalsite.models import Invitation
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


@dataclass
class Added:
    """Who was added; ``password`` is set only when it is to be shown once."""

    username: str
    role: str
    campaign: str
    password: str = ""
    mailed: bool = False


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
    for row in records:
        line, number = number, rows.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        cells = dict(zip(COLUMNS, (cell.strip() for cell in row + [""] * 4), strict=False))
        newcomer = _check_line(line, cells, need_email, known, reading.problems)
        if newcomer is not None:
            reading.newcomers.append(newcomer)
        known.add(usernames.skeleton(cells["username"]))
    if not reading.newcomers and not reading.problems:
        reading.problems.append(Problem(2, _("file"), _("there is nobody to add")))
    return reading


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


def add_people(newcomers: list[Newcomer], *, mail: bool, site: str) -> list[Added]:
    """Create everyone in one transaction; mails go out only once all are stored."""
    added: list[Added] = []
    created: list[User] = []
    with transaction.atomic():
        for newcomer in newcomers:
            user = User(username=newcomer.username, email=newcomer.email)
            password = "" if mail else secrets.token_urlsafe(9)
            if mail:
                user.set_unusable_password()
            else:
                user.set_password(password)
            user.save()
            user.groups.add(Group.objects.get_or_create(name=newcomer.role)[0])
            if newcomer.team is not None and newcomer.campaign_id is not None:
                newcomer.team.join(user, newcomer.campaign_id)
            created.append(user)
            role = str(ROLE_LABELS[newcomer.role])
            added.append(Added(newcomer.username, role, newcomer.campaign_name, password, mail))
    if mail:
        for user in created:
            _mail_link(user, site)
    return added


def _mail_link(user: User, site: str) -> None:
    path = reverse(
        "password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )
    values: dict[str, Any] = {"name": user.username, "link": site + path}
    send_mail(
        _("Your EvalSite account"),
        _(
            "Hello %(name)s,\n\nAn EvalSite account was made for you. Choose your password "
            "here:\n%(link)s\n"
        )
        % values,
        None,
        [user.email],
    )
