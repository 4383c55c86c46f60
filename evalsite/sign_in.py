"""Signing in and asking for a password-reset mail, throttled.

Failed sign-ins are counted per account and per client address
(``LOGIN_FAILURES_PER_ACCOUNT`` and ``LOGIN_FAILURES_PER_ADDRESS`` per
``LOGIN_FAILURE_WINDOW`` seconds); beyond either, the form refuses even the right
password until the window passes, and the page answers 429. Reset mails are counted per
e-mail address and per client address (``RESET_MAILS_PER_EMAIL``,
``RESET_MAILS_PER_ADDRESS`` per hour); beyond them no mail is sent, whether or not the
address has an account, so the answer says nothing about who has one.

The admin's sign-in page uses the same throttled form and the same counts, so failures on
either page count against both.

The client address is ``REMOTE_ADDR``: behind a proxy, run daphne with ``--proxy-headers``
so that it is the client's and not the proxy's.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from evalsite import rate_limits

RESET_WINDOW = 3600


def client_address(request: HttpRequest | None) -> str:
    return str(request.META.get("REMOTE_ADDR", "")) if request is not None else ""


def _too_many(wait: int) -> forms.ValidationError:
    minutes = max(1, round(wait / 60))
    return forms.ValidationError(
        _("Too many failed sign-ins. Try again in %(minutes)d minutes.") % {"minutes": minutes},
        code="throttled",
    )


class _Throttled(AuthenticationForm):
    """Refuses further attempts after too many failures, per account and per address."""

    def clean(self) -> dict[str, Any]:
        username = str(self.cleaned_data.get("username") or "").strip().lower()
        limits = [
            ("login-account", username, settings.LOGIN_FAILURES_PER_ACCOUNT),
            ("login-address", client_address(self.request), settings.LOGIN_FAILURES_PER_ADDRESS),
        ]
        window = settings.LOGIN_FAILURE_WINDOW
        # Each attempt is counted before its password is checked, and given back only when it
        # is right: counting after the check let concurrent guesses all pass the check first.
        for scope, who, limit in limits:
            wait = rate_limits.hit(scope, who, limit, window)
            if wait is not None:
                raise _too_many(wait)
        cleaned = super().clean()
        for scope, who, _limit in limits:
            rate_limits.give_back(scope, who, window)
        return cleaned


class ThrottledAuthenticationForm(_Throttled):
    """Django's sign-in form, refusing further attempts after too many failures."""


class ThrottledAdminAuthenticationForm(_Throttled, AdminAuthenticationForm):
    """The admin's sign-in form (staff only), counting failures with the site's own."""


class ThrottledPasswordResetForm(PasswordResetForm):
    """Django's reset form; beyond the limits it sends nothing and says so."""

    request: HttpRequest | None = None

    def clean_email(self) -> str:
        email = str(self.cleaned_data["email"]).strip().lower()
        limits = [
            ("reset-email", email, settings.RESET_MAILS_PER_EMAIL),
            ("reset-address", client_address(self.request), settings.RESET_MAILS_PER_ADDRESS),
        ]
        for scope, who, limit in limits:
            if rate_limits.hit(scope, who, limit, RESET_WINDOW) is not None:
                raise forms.ValidationError(
                    _("Too many reset mails were asked for. Try again in an hour."),
                    code="throttled",
                )
        return email


class LoginView(auth_views.LoginView):
    authentication_form = ThrottledAuthenticationForm

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        if form.has_error("__all__", "throttled"):
            response.status_code = 429
        return response


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's sign-in page (its form is ``ThrottledAdminAuthenticationForm``), answering
    429 when throttled, like the site's own."""
    response = admin.site.login(request)
    form = (getattr(response, "context_data", None) or {}).get("form")
    if isinstance(form, AuthenticationForm) and form.has_error("__all__", "throttled"):
        response.status_code = 429
    return response


class PasswordResetView(auth_views.PasswordResetView):
    form_class = ThrottledPasswordResetForm

    def get_form(self, form_class: Any = None) -> Any:
        form = super().get_form(form_class)
        form.request = self.request
        return form

    def form_invalid(self, form: PasswordResetForm) -> HttpResponse:
        response = super().form_invalid(form)
        if form.has_error("email", "throttled"):
            response.status_code = 429
        return response
