"""Whether a judge may rate a conversation, and storing a rating exactly once.

A conversation is rated once, after it ends. A double-clicked form sends two posts at
the same moment: the session's one-to-one rating is the guard, and the second post is
answered "already rated" instead of failing. A closed campaign takes no more ratings
unless its coordinator allowed late rating.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from liveeval.chat import takes_ratings
from liveeval.forms import RatingForm
from liveeval.models import ChatSession, Rating


def already_rated() -> str:
    return _("This conversation is already rated; ratings are locked.")


def refusal(session: ChatSession) -> str | None:
    """Why ``session`` cannot be rated now, in words; None when it can."""
    if session.kind != ChatSession.Kind.JUDGED or session.status != ChatSession.Status.ENDED:
        return _("Only an ended conversation can be rated.")
    if not takes_ratings(session):
        return _("This campaign is closed and takes no more ratings.")
    if Rating.objects.filter(session=session).exists():
        return already_rated()
    return None


def store(session: ChatSession, form: RatingForm) -> bool:
    """Store the valid ``form`` as the session's rating; False when one was already stored."""
    rating = form.save(commit=False)
    rating.session = session
    rating.created_at = timezone.now()
    try:
        with transaction.atomic():
            rating.save()
    except IntegrityError:
        return False
    return True
