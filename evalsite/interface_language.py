"""The interface language remembered per person, not only per browser.

The language switch stores the choice (`set_language`); on every request of a logged-in
person the stored choice wins over the browser's cookie and headers (`InterfaceLanguageMiddleware`,
placed after the authentication middleware), and the cookie is brought in line with it, so that
a new browser or a new login shows the person's language at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from evalsite.models import InterfaceLanguage


def stored_language(user: Any) -> str | None:
    """The language the user chose, when they did and it is still offered."""
    if not getattr(user, "is_authenticated", False):
        return None
    code = InterfaceLanguage.objects.filter(user=user).values_list("language", flat=True).first()
    offered = {code for code, _ in settings.LANGUAGES}
    return code if code in offered else None


def remember(user: Any, language: str) -> None:
    if getattr(user, "is_authenticated", False) and translation.check_for_language(language):
        InterfaceLanguage.objects.update_or_create(user=user, defaults={"language": language})


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's language switch, which also stores the choice for a logged-in person."""
    response = django_set_language(request)
    remember(request.user, request.POST.get("language", ""))
    return response


class InterfaceLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        before = getattr(request, "user", None)
        language = stored_language(before)
        if language is not None:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        response = self.get_response(request)
        after = getattr(request, "user", None)
        if language is None and after is not before:
            # The login view itself: the person is known only once it has run.
            language = stored_language(after)
        if language is not None and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language:
            response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, samesite="Lax")
        return response
