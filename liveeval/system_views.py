"""The coordinator's system pages: the list, adding and editing, testing, disabling, deleting."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evalsite import roles
from evalsite.http import HtmxHttpRequest
from liveeval.connection_check import ConnectionCheck, check_connection
from liveeval.models import ChatSession, DialogueSystem
from liveeval.system_forms import FAMILIES, SystemForm, family_of

# A system whose only conversations are these can be deleted with them.
THROW_AWAY_KINDS = (ChatSession.Kind.SANDBOX, ChatSession.Kind.TALK)


def blocking_use(system: DialogueSystem) -> str:
    """Why the system cannot be deleted, or "" when nothing but throw-away talk uses it."""
    used_by = list(system.campaigns.values_list("name", flat=True)[:3])
    if used_by:
        return _("it is used by the campaign(s) %(names)s") % {"names": ", ".join(used_by)}
    if system.sessions.exclude(kind__in=THROW_AWAY_KINDS).exists():
        return _("its conversations are kept for the results")
    return ""


def describe_check(system: DialogueSystem, check: ConnectionCheck) -> str:
    values = {"alias": system.alias, "ms": check.latency_ms}
    if check.ok:
        values["reply"] = check.reply
        return _("%(alias)s answered in %(ms)s ms: %(reply)s") % values
    values["failure"] = check.failure
    return _("%(alias)s failed after %(ms)s ms: %(failure)s") % values


@roles.coordinator_required
def system_list(request: HttpRequest) -> HttpResponse:
    systems = DialogueSystem.objects.annotate(n_campaigns=Count("campaigns")).order_by("alias")
    return render(request, "liveeval/system_list.html", {"systems": systems})


@roles.coordinator_required
def system_edit(request: HttpRequest, system_id: int | None = None) -> HttpResponse:
    system = get_object_or_404(DialogueSystem, pk=system_id) if system_id else None
    family = family_of(system.kind) if system else request.GET.get("kind", "http")
    if family not in FAMILIES:
        raise Http404
    form = SystemForm(request.POST or None, instance=system, family=family)
    if request.method == "POST" and form.is_valid():
        saved = form.save()
        messages.success(request, _("%(alias)s saved.") % {"alias": saved.alias})
        return redirect("liveeval:system_list")
    context = {"form": form, "system": system, "family": family}
    return render(request, "liveeval/system_form.html", context)


@roles.coordinator_required
@require_POST
def system_test(request: HtmxHttpRequest, system_id: int) -> HttpResponse:
    system = get_object_or_404(DialogueSystem, pk=system_id)
    lang = "zh" if (get_language() or "").startswith("zh") else "en"
    check = check_connection(system, lang=lang, user=request.user)
    if request.htmx:
        context = {"system": system, "check": check}
        return render(request, "liveeval/_connection_check.html", context)
    messages.info(request, describe_check(system, check))
    return redirect("liveeval:system_list")


@roles.coordinator_required
@require_POST
def system_toggle(request: HttpRequest, system_id: int) -> HttpResponse:
    system = get_object_or_404(DialogueSystem, pk=system_id)
    system.enabled = not system.enabled
    system.save(update_fields=["enabled"])
    done = _("%(alias)s enabled.") if system.enabled else _("%(alias)s disabled.")
    messages.success(request, done % {"alias": system.alias})
    return redirect("liveeval:system_list")


@roles.coordinator_required
@require_POST
def system_delete(request: HttpRequest, system_id: int) -> HttpResponse:
    system = get_object_or_404(DialogueSystem, pk=system_id)
    with transaction.atomic():
        reason = blocking_use(system)
        if reason:
            messages.error(
                request,
                _("%(alias)s cannot be deleted: %(reason)s. Disable it instead.")
                % {"alias": system.alias, "reason": reason},
            )
            return redirect("liveeval:system_list")
        system.sessions.filter(kind__in=THROW_AWAY_KINDS).delete()
        system.delete()
    messages.success(request, _("%(alias)s deleted.") % {"alias": system.alias})
    return redirect("liveeval:system_list")
