"""What coordinators see of a campaign's results: the leaderboard, session reviews, exports."""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from django.http import HttpResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from evalsite.agreement.phrases import Phrase, gettext_noop, listed, shown
from evalsite.downloads import csv_download, file_stem, xlsx_download
from evalsite.language import is_chinese
from evalsite.spreadsheets import (
    About,
    BarChartSpec,
    CellValue,
    Sheet,
    export_time,
    write_csv,
    write_workbook,
)
from liveeval import aliases, judge_agreement, metrics
from liveeval.booking.cities import in_english
from liveeval.booking.goals import explain_goal, goal_met
from liveeval.campaigns import session_rows
from liveeval.models import DIALOGUE_LANGUAGES, Campaign, ChatSession, DialogueSystem, Message

LEADERBOARD_HEADER = [
    "lang",
    "rank",
    "alias",
    "alias_label",
    "system",
    "sessions",
    "tasks",
    "completion_rate",
    "completion_ci_low",
    "completion_ci_high",
    "avg_turns",
    "avg_turns_ci_low",
    "avg_turns_ci_high",
    "pooled_completion_rate",
    "pooled_avg_turns",
    "mean_satisfaction",
    "mean_fluency",
    "mean_guidance",
    "auto_completion_rate",
    "judge_vs_auto_agreement",
    "judges",
    "max_avg_turns",
]


def _systems(campaign: Campaign) -> dict[int, DialogueSystem]:
    return {system.pk: system for system in DialogueSystem.objects.filter(campaigns=campaign)}


def alias_names(campaign: Campaign) -> dict[int, str]:
    """What judges of ``campaign`` call each of its systems."""
    return aliases.campaign_names(campaign)


def language_filter(value: str | None) -> str | None:
    """The dialogue language a results page or export is limited to; None means all."""
    return value if value in dict(DIALOGUE_LANGUAGES) else None


def _alpha_text(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def sources_verdict_sentence(between: Mapping[str, judge_agreement.SourceAgreement]) -> str:
    """The "simulated vs human judges" verdict, in the reader's language.

    Built by the one rule of `evalsite.agreement.verdict`, as the agreement report's and judge
    alignment's are: the alternative annotator test, α(simulated, judge) above 0 and not
    significantly below α(judge, judge), ratings that vary; each measure that fails names what
    failed. Never from α with the simulated users counted as one more judge.
    """
    verdict = judge_agreement.sources_verdict(between)
    epsilon = f"{verdict.epsilon:g}"
    if verdict.outcome == "stand_in":
        opening = _(
            "Simulated users can stand in for the human judges on %(measures)s: they pass the "
            "alternative annotator test (ε = %(epsilon)s), their α with the judges is above 0 "
            "and not significantly below α between judges, and their ratings vary."
        ) % {"measures": listed(verdict.passed), "epsilon": epsilon}
    elif verdict.outcome == "cannot_stand_in":
        opening = _(
            "Simulated users cannot stand in for the human judges on %(measures)s: on each, "
            "at least one check of the rule fails (alternative annotator test at ε = "
            "%(epsilon)s, α with the judges above 0 and not significantly below α between "
            "judges, ratings that vary)."
        ) % {"measures": listed(verdict.failed), "epsilon": epsilon}
    elif verdict.outcome == "mixed":
        opening = _(
            "Simulated users can stand in for the human judges on %(passed)s but not on "
            "%(failed)s (alternative annotator test at ε = %(epsilon)s, α with the judges above "
            "0 and not significantly below α between judges, ratings that vary)."
        ) % {
            "passed": listed(verdict.passed),
            "failed": listed(verdict.failed),
            "epsilon": epsilon,
        }
    else:
        opening = _(
            "There is no verdict on whether simulated users can stand in for the human judges: "
            "the alternative annotator test needs a judge with %(needed)s (task, system) pairs "
            "that a simulated user and another judge also rated."
        ) % {"needed": verdict.min_items}
    sentences = [opening]
    sentences.extend(
        shown(
            Phrase(
                gettext_noop("%(measure)s: %(reasons)s."), measure=symbol, reasons=failure.reasons
            )
        )
        for symbol, failure in verdict.failures
    )
    if verdict.untested and verdict.outcome != "no_verdict":
        sentences.append(
            _("The test could not run on %(measures)s.") % {"measures": listed(verdict.untested)}
        )
    alphas = listed(
        [
            f"{agreement.symbol} {_alpha_text(agreement.alpha_vs_judges.value)} / "
            f"{_alpha_text(agreement.alpha_between_judges.value)}"
            for agreement in between.values()
        ]
    )
    sentences.append(
        _(
            "Mean α between a simulated user and each judge, against the mean α between two "
            "judges: %(alphas)s."
        )
        % {"alphas": alphas}
    )
    return " ".join(sentences)


def leaderboard_context(campaign: Campaign, lang: str | None = None) -> dict[str, Any]:
    rows = session_rows(
        campaign, kinds=(ChatSession.Kind.JUDGED, ChatSession.Kind.SIMULATED), lang=lang
    )
    systems = _systems(campaign)
    names = aliases.campaign_names(campaign)
    human_rows = [row for row in rows if row.source == "human"]
    simulated_rows = [row for row in rows if row.source == "simulated"]
    between = (
        judge_agreement.agreement_between_sources(rows) if human_rows and simulated_rows else {}
    )
    context: dict[str, Any] = {
        "campaign": campaign,
        "lang": lang or "",
        "export_query": f"?lang={lang}" if lang else "",
        "languages": DIALOGUE_LANGUAGES,
        "systems": systems,
        "n_rows": len(rows),
        "human": _named(metrics.leaderboard(human_rows, source="human"), systems, names)
        if human_rows
        else [],
        "agreement": judge_agreement.judge_agreement(human_rows, source="human")
        if human_rows
        else {},
        "simulated": _named(metrics.leaderboard(simulated_rows, source="simulated"), systems, names)
        if simulated_rows
        else [],
        "between_sources": between,
        "between_sources_verdict": sources_verdict_sentence(between) if between else "",
        "between_sources_evidence": judge_agreement.sources_verdict(between) if between else None,
        "max_avg_turns": metrics.max_average_turns(human_rows) if human_rows else None,
        "simulated_max_avg_turns": metrics.max_average_turns(simulated_rows, source="simulated")
        if simulated_rows
        else None,
        "measures": metrics.MEASURES,
        "measure_labels": _measure_labels(),
    }
    return context


def _measure_labels() -> dict[str, str]:
    """Each rating measure's name in the reader's language, by its key."""
    return {measure.name: shown(measure.label) for measure in metrics.MEASURES}


def _named(
    results: Sequence[metrics.SystemResult],
    systems: dict[int, DialogueSystem],
    names: dict[int, str],
) -> list[dict[str, Any]]:
    return [
        {
            "result": result,
            "system": systems[int(result.system)],
            "alias": names[int(result.system)],
        }
        for result in results
    ]


def _leaderboard_rows(campaign: Campaign, lang: str | None) -> Iterator[list[CellValue]]:
    systems = _systems(campaign)
    codes = aliases.campaign_codes(campaign)
    rows = [row for row in session_rows(campaign, lang=lang) if row.source == "human"]
    if not rows:
        return
    most_turns = metrics.max_average_turns(rows)
    for result in metrics.leaderboard(rows, source="human"):
        system = systems[int(result.system)]
        completion = result.completion_ci or (None, None)
        turns = result.avg_turns_ci or (None, None)
        yield [
            lang or "all",
            result.rank,
            aliases.export_code(codes[system.pk]),
            aliases.public_name(codes[system.pk]),
            system.name,
            result.n_sessions,
            result.n_tasks,
            result.completion_rate,
            completion[0],
            completion[1],
            result.avg_turns,
            turns[0],
            turns[1],
            result.pooled_completion_rate,
            result.pooled_avg_turns,
            result.mean_satisfaction,
            result.mean_fluency,
            result.mean_guidance,
            result.auto_completion_rate,
            result.auto_agreement,
            result.n_judges,
            most_turns,
        ]


SESSION_HEADER = [
    "session",
    "judge",
    "kind",
    "lang",
    "task",
    "alias",
    "alias_label",
    "system",
    "status",
    "end_reason",
    "turns",
    "started_at",
    "ended_at",
    "goal_met",
    "completed",
    "satisfaction",
    "fluency",
    "guidance",
    "comment",
]


def _sessions(campaign: Campaign, lang: str | None) -> Any:
    chosen = campaign.sessions.filter(lang=lang) if lang else campaign.sessions.all()
    return (
        chosen.exclude(status=ChatSession.Status.PENDING)
        .select_related("system", "task", "user", "rating")
        .prefetch_related("bookings", "messages")
        .order_by("pk")
    )


def _session_rows(campaign: Campaign, lang: str | None) -> Iterator[list[CellValue]]:
    codes = aliases.campaign_codes(campaign)
    for session in _sessions(campaign, lang):
        rating = getattr(session, "rating", None)
        turns = sum(1 for m in session.messages.all() if m.role != Message.Role.NOTICE)
        met = (
            goal_met(session.task.goal, list(session.bookings.all()), session.today)
            if session.task is not None
            else None
        )
        yield [
            session.pk,
            session.user.username if session.user else "",
            session.kind,
            session.lang,
            session.task.key if session.task else "",
            aliases.export_code(codes[session.system_id]),
            aliases.public_name(codes[session.system_id]),
            session.system.name,
            session.status,
            session.end_reason,
            turns,
            export_time(session.started_at),
            export_time(session.ended_at),
            met,
            rating.completed if rating else None,
            rating.satisfaction if rating else None,
            rating.fluency if rating else None,
            rating.guidance if rating else None,
            rating.comment if rating else "",
        ]


MESSAGE_HEADER = ["session", "lang", "position", "role", "text", "created_at", "latency_ms"]


def _message_rows(campaign: Campaign, lang: str | None) -> Iterator[list[CellValue]]:
    chosen = Message.objects.filter(session__campaign=campaign)
    if lang:
        chosen = chosen.filter(session__lang=lang)
    messages = chosen.order_by("session_id", "position").values_list(
        "session_id", "session__lang", "position", "role", "text", "created_at", "latency_ms"
    )
    for session, session_lang, position, role, text, created_at, latency in messages.iterator():
        yield [session, session_lang, position, role, text, export_time(created_at), latency]


RATING_HEADER = [
    "session",
    "judge",
    "lang",
    "task",
    "alias",
    "alias_label",
    "system",
    "completed",
    "satisfaction",
    "fluency",
    "guidance",
    "comment",
    "rated_at",
]


def _rating_rows(campaign: Campaign, lang: str | None) -> Iterator[list[CellValue]]:
    codes = aliases.campaign_codes(campaign)
    for session in _sessions(campaign, lang).filter(rating__isnull=False):
        rating = session.rating
        yield [
            session.pk,
            session.user.username if session.user else "",
            session.lang,
            session.task.key if session.task else "",
            aliases.export_code(codes[session.system_id]),
            aliases.public_name(codes[session.system_id]),
            session.system.name,
            rating.completed,
            rating.satisfaction,
            rating.fluency,
            rating.guidance,
            rating.comment,
            export_time(rating.created_at),
        ]


TABLES = {
    "leaderboard": (LEADERBOARD_HEADER, _leaderboard_rows),
    "sessions": (SESSION_HEADER, _session_rows),
    "messages": (MESSAGE_HEADER, _message_rows),
    "ratings": (RATING_HEADER, _rating_rows),
}


def _empty_reason(table: str) -> str:
    return {
        "leaderboard": _("No judge has rated a session of this campaign yet."),
        "sessions": _("No session of this campaign has started yet."),
        "messages": _("No session of this campaign has a message yet."),
        "ratings": _("No judge has rated a session of this campaign yet."),
    }[table]


def export_about(campaign: Campaign, exported_by: str, lang: str | None) -> About:
    """The About sheet of a campaign's workbook, with what each alias code stands for."""
    subject = _("Live campaign: %(name)s") % {"name": campaign.name}
    if lang:
        subject += " · " + _("dialogues in %(language)s") % {
            "language": str(dict(DIALOGUE_LANGUAGES)[lang])
        }
    codes = sorted(aliases.campaign_codes(campaign).values())
    return About(
        subject,
        exported_by,
        [("alias", aliases.export_code(code), aliases.public_name(code)) for code in codes],
    )


def export_response(
    campaign: Campaign, table: str, fmt: str, lang: str | None = None, exported_by: str = ""
) -> HttpResponse:
    """One table as CSV, or the whole campaign as one workbook (``table`` = ``all``).

    With ``lang``, only the dialogues held in that language are exported.
    """
    name = file_stem(campaign.name, f"campaign-{campaign.pk}") + (f"-{lang}" if lang else "")
    if fmt == "csv":
        header, rows = TABLES[table]
        buffer = io.StringIO()
        write_csv(buffer, header, rows(campaign, lang))
        return csv_download(buffer.getvalue(), f"{name}-{table}.csv")
    if fmt != "xlsx":
        raise KeyError(fmt)
    chosen = list(TABLES) if table == "all" else [table]
    sheets = []
    for key in chosen:
        header, rows = TABLES[key]
        charts = (
            [
                BarChartSpec(
                    _("Completion rate"), categories="alias_label", values=["completion_rate"]
                )
            ]
            if key == "leaderboard"
            else []
        )
        sheets.append(
            Sheet(
                key.capitalize(),
                header,
                rows(campaign, lang),
                charts,
                empty=_empty_reason(key),
            )
        )
    buffer_bytes = io.BytesIO()
    write_workbook(buffer_bytes, sheets, export_about(campaign, exported_by, lang))
    return xlsx_download(buffer_bytes.getvalue(), f"{name}-{table}.xlsx")


def review_context(session: ChatSession) -> dict[str, Any]:
    rating = getattr(session, "rating", None)
    bookings = list(session.bookings.all())
    verdict = explanation = None
    if session.task is not None:
        verdict = goal_met(session.task.goal, bookings, session.today)
        # Goals name places in Chinese, as the booking world keeps them.
        english = not is_chinese(get_language() or "en")
        explanation = [
            in_english(str(line)) if english else shown(line.phrase())
            for line in explain_goal(session.task.goal, bookings, session.today)
        ]
    return {
        "session": session,
        "alias": aliases.public_name(aliases.code_for(session.campaign, session.system))
        if session.campaign is not None
        else session.system.alias,
        "chat_messages": list(session.messages.order_by("position")),
        "rating": rating,
        "bookings": bookings,
        "goal_met": verdict,
        "goal_explanation": explanation,
        "disagreement": rating is not None and verdict is not None and rating.completed != verdict,
        "turns": session.turn_count(),
    }
