"""The invitation pages: the coordinator's links, and the signup page a link opens."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evalsite import invitations, roles
from evalsite.invitation_forms import InvitationForm, SignupForm
from evalsite.models import Invitation


@roles.coordinator_required
def invitation_list(request: HttpRequest) -> HttpResponse:
    form = InvitationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        invitation = form.save(commit=False)
        invitation.created_by_id = request.user.pk
        invitation.save()
        messages.success(request, _("Invitation created: copy its link below and send it."))
        return redirect("invitations")
    rows = [(item, invitations.refusal(item)) for item in Invitation.objects.all()[:100]]
    return render(request, "people/invitations.html", {"form": form, "rows": rows})


@roles.coordinator_required
@require_POST
def invitation_revoke(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitations.revoke(get_object_or_404(Invitation, pk=invitation_id))
    messages.success(request, _("Invitation withdrawn: its link no longer works."))
    return redirect("invitations")


def signup(request: HttpRequest, token: str) -> HttpResponse:
    invitation = get_object_or_404(Invitation, token=token)
    reason = invitations.refusal(invitation)
    if reason is not None:
        return render(request, "people/invitation_refused.html", {"reason": reason}, status=410)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = invitations.accept(invitation.pk, form.save)
        except invitations.InvitationRefused as refused:
            refusal_page = {"reason": refused.message}
            return render(request, "people/invitation_refused.html", refusal_page, status=410)
        login(request, user)
        messages.success(request, _("Welcome, %(name)s.") % {"name": user.get_username()})
        return redirect("home")
    context = {"form": form, "invitation": invitation}
    return render(request, "people/signup.html", context)
