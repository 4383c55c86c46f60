"""The name judges know a system by: a random number per (campaign, system).

A global alias such as "System R" carries a judge's impressions from one campaign to the
next, and letters can be initials of the real name. Here every campaign draws fresh codes
(three digits, so they spell nothing), kept for the campaign's whole life so that a judge
meets the same system under the same name throughout it.
"""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from liveeval.models import Campaign, DialogueSystem, SystemAlias

CODES = [str(number) for number in range(100, 1000)]


def _draw(taken: set[str]) -> str:
    return secrets.choice([code for code in CODES if code not in taken])


def campaign_codes(campaign: Campaign) -> dict[int, str]:
    """Every system's code in ``campaign``, drawing codes for systems that have none yet."""
    codes = dict(SystemAlias.objects.filter(campaign=campaign).values_list("system_id", "code"))
    systems = set(campaign.systems.values_list("pk", flat=True))
    systems.update(campaign.sessions.values_list("system_id", flat=True).distinct())
    missing = sorted(pk for pk in systems if pk not in codes)
    for system_id in missing:
        codes[system_id] = _assign(campaign, system_id)
    return codes


def code_for(campaign: Campaign, system: DialogueSystem) -> str:
    found = SystemAlias.objects.filter(campaign=campaign, system=system).first()
    return found.code if found is not None else _assign(campaign, system.pk)


def _assign(campaign: Campaign, system_id: int) -> str:
    # Two requests may draw at once: the unique constraints decide, and the loser re-reads.
    for _attempt in range(5):
        taken = set(SystemAlias.objects.filter(campaign=campaign).values_list("code", flat=True))
        try:
            with transaction.atomic():
                alias, _created = SystemAlias.objects.get_or_create(
                    campaign=campaign, system_id=system_id, defaults={"code": _draw(taken)}
                )
            return alias.code
        except IntegrityError:
            continue
    raise RuntimeError(f"no free alias code in campaign {campaign.pk}")


def export_code(code: str) -> str:
    """The alias as exported files hold it, the same in every language: ``S`` and the code."""
    return f"S{code}"


def public_name(code: str) -> str:
    """The alias as the reader's interface says it."""
    return _("System %(code)s") % {"code": code}


def campaign_names(campaign: Campaign) -> dict[int, str]:
    """Every system's alias in ``campaign``, in the reader's language, by system id."""
    return {pk: public_name(code) for pk, code in campaign_codes(campaign).items()}
