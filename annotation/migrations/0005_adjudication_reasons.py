"""The starting list of adjudication reasons (editable afterwards in the admin)."""

from __future__ import annotations

from typing import Any

from django.db import migrations

REASONS = (
    ("rubric unclear", "评分标准不清楚"),
    ("LLM misread", "LLM 误读"),
    ("humans split", "人工意见分歧"),
    ("human error", "人工失误"),
)


def add_reasons(apps: Any, schema_editor: Any) -> None:
    reason = apps.get_model("annotation", "AdjudicationReason")
    for position, (english, chinese) in enumerate(REASONS):
        reason.objects.get_or_create(
            label_en=english, defaults={"label_zh": chinese, "position": position}
        )


class Migration(migrations.Migration):
    dependencies = [("annotation", "0004_judge_alignment")]

    operations = [migrations.RunPython(add_reasons, migrations.RunPython.noop)]
