"""Every page of the site, found through the URL resolver, with one instance per pattern.

Run as ``python -m tests.e2e.page_instances`` against a seeded demo database; it prints one
JSON object: ``pages`` (name → path), ``missing`` (patterns that take arguments and have
no instance here) and ``data`` (the texts of the demo's data, which pages show as they are).
A pattern without arguments is crawled as soon as it exists; one with arguments needs an
entry in ``INSTANCES``, or in ``NOT_PAGES`` when it is no page at all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import Any

# Patterns that are not pages a person reads: posts, files, partials, machine endpoints.
NOT_PAGES: dict[str, str] = {
    "healthz": "machine health check",
    "logout": "POST only",
    "set_language": "POST only",
    "job_resume": "POST only",
    "from_live:send": "POST only",
    "liveeval:end_session": "POST only",
    "liveeval:rate_session": "a post; asked for as a page, it leads to the chat page",
    "liveeval:campaign_open": "POST only",
    "liveeval:campaign_close": "POST only",
    "liveeval:campaign_export": "a CSV or XLSX file",
    "annotation_report:compute": "POST only",
    "annotation_report:progress": "a partial the report page polls",
    "annotation_report:workbook": "an XLSX file",
    "annotation_report:csv": "a CSV file",
    "annotation:skip": "POST only",
    "annotation:take_up": "POST only",
    "invitation_revoke": "POST only",
    "deactivate_person": "POST only",
    "liveeval:campaign_progress": "a partial the campaign page polls",
    "annotation:roster": "a partial the dashboard polls",
    "liveeval:campaign_roster": "a partial the campaign page polls",
    "liveeval:system_test": "POST only",
    "liveeval:system_toggle": "POST only",
    "liveeval:system_delete": "POST only",
    "annotation_alignment:adjudicators": "POST only",
    "annotation_alignment:adjudicate": "needs an LLM-scored item; test_alignment opens it",
    "annotation_alignment:workbook": "an XLSX file",
    "annotation_alignment:csv": "a CSV file",
    "from_intent:agreement": "needs a campaign of intent utterances; test_from_intent opens it",
    "intent:upload": "POST only",
    "intent:add_team": "POST only",
    "intent:phase": "POST only",
    "intent:submit": "POST only",
    "intent:endpoint": "POST only",
    "intent:test_inputs": "a JSON file",
    "intent:submission_csv": "a CSV file",
    "intent:submission_xlsx": "an XLSX file",
    "annotation:archive": "POST only",
    "annotation:restore": "POST only",
    "liveeval:campaign_archive": "POST only",
    "liveeval:campaign_restore": "POST only",
    "liveeval:campaign_task_languages": "POST only",
    "fidelity:upload_items": "POST only",
    "fidelity:upload_requests": "POST only",
    "fidelity:catalog": "POST only",
    "fidelity:prompts": "POST only",
    "fidelity:add_simulator": "POST only",
    "fidelity:run_simulator": "POST only",
    "fidelity:embed_requests": "POST only",
    "fidelity:send_to_people": "POST only",
    "fidelity:collect_people": "POST only",
    "fidelity:delete_simulator": "POST only",
    "fidelity:label_aspects": "POST only",
    "fidelity:report_csv": "a CSV file",
    "fidelity:report_xlsx": "an XLSX file",
}
# Whole namespaces that are not the site's own pages.
NOT_PAGE_NAMESPACES = ("admin", "booking_api")


def _live_campaign() -> dict[str, Any]:
    from liveeval.models import Campaign

    return {"campaign_id": Campaign.objects.order_by("pk").values_list("pk", flat=True)[0]}


def _annotation_campaign() -> dict[str, Any]:
    from annotation.models import Campaign

    return {"campaign_id": Campaign.objects.order_by("pk").values_list("pk", flat=True)[0]}


def _transcript() -> dict[str, Any]:
    from annotation.models import Transcript

    transcript = Transcript.objects.order_by("campaign_id", "position").first()
    assert transcript is not None
    return {"campaign_id": transcript.campaign_id, "transcript_id": transcript.pk}


def _judged_session() -> dict[str, Any]:
    """A conversation of judge1's, opened as "Start next conversation" would."""
    from django.contrib.auth.models import User

    from liveeval.models import ChatSession

    session = (
        ChatSession.objects.filter(user=User.objects.get(username="judge1"))
        .exclude(status=ChatSession.Status.PENDING)
        .first()
    ) or ChatSession.objects.filter(user__username="judge1").order_by("position").first()
    assert session is not None
    if session.status == ChatSession.Status.PENDING:
        session.status = ChatSession.Status.OPEN
        session.save(update_fields=["status"])
    return {"session_id": session.pk}


def _job() -> dict[str, Any]:
    """A finished job of the test counting kind (the served app is ``testing.asgi``)."""
    from evalsite.models import Job
    from testing.counting import KIND

    job = Job.objects.create(
        kind=KIND, params={"total": 3}, status=Job.Status.DONE, done=3, total=3
    )
    return {"job_id": job.pk}


def _password_reset() -> dict[str, Any]:
    from django.contrib.auth.models import User
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    user = User.objects.get(username="annotator3")
    return {
        "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
        "token": default_token_generator.make_token(user),
    }


def _system() -> dict[str, Any]:
    from liveeval.models import DialogueSystem

    return {"system_id": DialogueSystem.objects.order_by("pk").values_list("pk", flat=True)[0]}


def _invitation() -> dict[str, Any]:
    from datetime import timedelta

    from django.utils import timezone

    from evalsite import roles
    from evalsite.models import Invitation

    invitation = Invitation.objects.create(
        role=roles.JUDGES, expires_at=timezone.now() + timedelta(days=1)
    )
    return {"token": invitation.token}


def _track() -> dict[str, Any]:
    from intent.models import Track

    return {"track_id": Track.objects.order_by("pk").values_list("pk", flat=True)[0]}


def _submission() -> dict[str, Any]:
    from intent.models import Submission

    return {"submission_id": Submission.objects.order_by("pk").values_list("pk", flat=True)[0]}


def _fidelity_study() -> dict[str, Any]:
    from fidelity.models import Study

    return {"study_id": Study.objects.order_by("pk").values_list("pk", flat=True)[0]}


def _fidelity_simulator() -> dict[str, Any]:
    from fidelity.models import Simulator

    study_id, simulator_id = Simulator.objects.order_by("pk").values_list("study_id", "pk")[0]
    return {"study_id": study_id, "simulator_id": simulator_id}


INSTANCES: dict[str, Callable[[], dict[str, Any]]] = {
    "fidelity:edit_simulator": _fidelity_simulator,
    "fidelity:study": _fidelity_study,
    "fidelity:report": _fidelity_study,
    "signup": _invitation,
    "liveeval:system_edit": _system,
    "from_intent:send": _track,
    "annotation_alignment:page": _annotation_campaign,
    "annotation_alignment:queue": _annotation_campaign,
    "intent:track": _track,
    "intent:leaderboard": _track,
    "intent:submission": _submission,
    "password_reset_confirm": _password_reset,
    "job_detail": _job,
    "simulation:campaign": _live_campaign,
    "liveeval:chat": _judged_session,
    "liveeval:session_review": _judged_session,
    "liveeval:campaign_detail": _live_campaign,
    "liveeval:campaign_edit": _live_campaign,
    "liveeval:leaderboard": _live_campaign,
    "concept:scorecard": _annotation_campaign,
    "concept:transcripts": _annotation_campaign,
    "annotation_llm:campaign": _annotation_campaign,
    "annotation_report:page": _annotation_campaign,
    "annotation:dashboard": _annotation_campaign,
    "annotation:transcript_scores": _transcript,
    "annotation:work": _annotation_campaign,
    "annotation:mine": _annotation_campaign,
    "annotation:item": _transcript,
    "annotation:settings": _annotation_campaign,
    "annotation:gold_items": _annotation_campaign,
    "annotation:gold_item": _transcript,
    "annotation:clone": _annotation_campaign,
    "liveeval:campaign_clone": _live_campaign,
}


# The demo's own data, which pages show as it is: every text these models hold (jobs and LLM
# calls are left out, for what they say is the interface's).
DATA_APPS = ("liveeval", "annotation", "intent", "fidelity")
DATA_MODELS = ("auth.User", "evalsite.Invitation")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def data() -> list[str]:
    """Every text of the demo's data (names, usernames, transcripts, task cards, utterances), the
    metric keys notes name, and what the test-only counting job says (it is not translated)."""
    from django.apps import apps
    from django.db import models

    from annotation.concept.measures import COORDINATED_ABILITIES, RUBRIC_DIMENSIONS
    from evalsite.models import Job
    from testing.counting import KIND, describe_count

    found: set[str] = {*COORDINATED_ABILITIES, *RUBRIC_DIMENSIONS}
    for job in Job.objects.filter(kind=KIND):
        described = describe_count(job)
        found |= {described.name, described.sentence, *described.details}
    chosen = [model for name in DATA_APPS for model in apps.get_app_config(name).get_models()]
    chosen += [apps.get_model(label) for label in DATA_MODELS]
    for model in chosen:
        fields = [
            field.name
            for field in model._meta.get_fields()
            if isinstance(field, models.CharField | models.TextField | models.JSONField)
            and field.name != "password"
        ]
        if fields:
            for row in model._default_manager.values_list(*fields):
                found.update(text.strip() for text in _strings(list(row)) if text.strip())
    return sorted(found)


def patterns() -> Iterator[tuple[str, bool]]:
    """Every named pattern of the root URLconf: its full name, and whether it takes arguments."""
    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(items: list[Any], namespace: str, regex_args: bool) -> Iterator[tuple[str, bool]]:
        for item in items:
            if isinstance(item, URLResolver):
                inner = ":".join(part for part in (namespace, item.namespace or "") if part)
                has_args = regex_args or bool(item.pattern.regex.groups)
                yield from walk(item.url_patterns, inner, has_args)
            elif isinstance(item, URLPattern) and item.name:
                name = f"{namespace}:{item.name}" if namespace else item.name
                yield name, regex_args or bool(item.pattern.regex.groups)

    yield from walk(get_resolver().url_patterns, "", False)


def pages() -> tuple[dict[str, str], list[str]]:
    from django.urls import reverse

    found: dict[str, str] = {}
    missing: list[str] = []
    for name, takes_arguments in patterns():
        if name in NOT_PAGES or name.split(":")[0] in NOT_PAGE_NAMESPACES:
            continue
        if not takes_arguments:
            found[name] = reverse(name)
        elif name in INSTANCES:
            found[name] = reverse(name, kwargs=INSTANCES[name]())
        else:
            missing.append(name)
    return found, missing


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    found, missing = pages()
    print(json.dumps({"pages": found, "missing": missing, "data": data()}))


if __name__ == "__main__":
    main()
