"""Usernames that cannot pass for someone else's: no mixed scripts, no look-alikes.

Django accepts any Unicode letters in a username, so "оtto" with a Cyrillic о could be made
beside "otto". A username is refused when it mixes Latin letters with Cyrillic or Greek ones,
and when its `skeleton` (NFKC, case-folded, with Cyrillic and Greek look-alikes read as the
Latin letters they look like) is already taken. Chinese usernames, and Latin ones with digits
and punctuation, are unaffected.

Every way an account is made or renamed applies it: invitations, the people CSV,
``manage.py create_coordinator`` and the admin's user forms (``evalsite/admin.py``).
"""

from __future__ import annotations

import unicodedata

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

# Cyrillic and Greek letters that look like Latin ones, in lower case.
LOOK_ALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i",
        "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g",
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w",
    }
)  # fmt: skip
_LOOKALIKE_SCRIPTS = ("CYRILLIC", "GREEK")


def skeleton(username: str) -> str:
    """What ``username`` looks like: the form two usernames that look alike share."""
    return unicodedata.normalize("NFKC", username).casefold().translate(LOOK_ALIKES)


def _scripts(username: str) -> set[str]:
    found = set()
    for character in username:
        if character.isalpha():
            name = unicodedata.name(character, "")
            found.add(name.split(" ", 1)[0])
    return found


def mixes_scripts(username: str) -> bool:
    """Latin letters beside Cyrillic or Greek ones, as in a username made to look like another."""
    scripts = _scripts(username)
    return "LATIN" in scripts and any(script in scripts for script in _LOOKALIKE_SCRIPTS)


def taken_skeletons(exclude_pk: int | None = None) -> set[str]:
    """The skeleton of every username there is (but the user ``exclude_pk``'s)."""
    users = User.objects.exclude(pk=exclude_pk) if exclude_pk is not None else User.objects
    return {skeleton(name) for name in users.values_list("username", flat=True)}


def problem(username: str, taken: set[str]) -> str | None:
    """Why ``username`` cannot be used, given the skeletons ``taken``; None when it can."""
    if mixes_scripts(username):
        return _("mixes Latin letters with Cyrillic or Greek ones, which look alike")
    if skeleton(username) in taken:
        return _("%(name)s looks like a username that is taken") % {"name": username}
    return None


def validate_new_username(username: str, exclude_pk: int | None = None) -> None:
    """Raise `ValidationError` for a username that could pass for another; ``exclude_pk`` is the
    user being renamed, whose own name is no rival."""
    found = problem(username, taken_skeletons(exclude_pk))
    if found is not None:
        raise ValidationError(found, code="look_alike")
