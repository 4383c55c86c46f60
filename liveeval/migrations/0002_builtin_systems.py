from __future__ import annotations

from django.db import migrations

BUILTIN = [
    {
        "slug": "reference",
        "name": "Reference booking assistant",
        "alias": "System R",
        "kind": "reference",
        "description": "Rule-based slot-filling assistant for flights, trains and hotels (zh/en).",
    },
    {
        "slug": "baseline",
        "name": "Keyword baseline",
        "alias": "System B",
        "kind": "baseline",
        "description": (
            "BASELINE: keyword lookup with no dialogue state. It exists so that a leaderboard "
            "has real contrast; do not use it as a serious competitor."
        ),
    },
]


def create_builtin_systems(apps, schema_editor):  # type: ignore[no-untyped-def]
    DialogueSystem = apps.get_model("liveeval", "DialogueSystem")
    for row in BUILTIN:
        DialogueSystem.objects.update_or_create(slug=row["slug"], defaults=row)


def remove_builtin_systems(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("liveeval", "DialogueSystem").objects.filter(
        slug__in=[row["slug"] for row in BUILTIN]
    ).delete()


class Migration(migrations.Migration):
    dependencies = [("liveeval", "0001_initial")]

    operations = [migrations.RunPython(create_builtin_systems, remove_builtin_systems)]
