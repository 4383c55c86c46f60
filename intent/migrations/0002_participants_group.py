from __future__ import annotations

from django.db import migrations


def create_group(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.get_or_create(name="participants")


def remove_group(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.filter(name="participants").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("intent", "0001_tracks_teams_submissions"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
