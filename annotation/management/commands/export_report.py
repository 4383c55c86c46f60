"""``manage.py export_report CAMPAIGN --out report.xlsx``: the agreement report as files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Campaign
from annotation.report import cache, workbook
from evalsite.agreement.common import DEFAULT_RESAMPLES
from evalsite.commands import named_or_numbered
from evalsite.models import Job


def _writable_folder(path: Path, option: str) -> None:
    if not path.is_dir():
        raise CommandError(f"{option} {path}: the folder {path} does not exist; create it first.")


class Command(BaseCommand):
    help = (
        "Write a campaign's human–LLM agreement report as an Excel workbook and/or one CSV file "
        "per table. The cached report is used when it is up to date; otherwise it is computed "
        "first."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="The campaign's name or id.")
        parser.add_argument("--out", type=Path, help="The workbook to write (.xlsx).")
        parser.add_argument(
            "--csv-dir", type=Path, help="A folder to write one CSV file per table into."
        )
        parser.add_argument(
            "--resamples",
            type=int,
            default=DEFAULT_RESAMPLES,
            help="Bootstrap resamples when the report must be computed (0 turns CIs off).",
        )
        parser.add_argument(
            "--recompute",
            action="store_true",
            help="Compute the report again even when the cached one is up to date.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        out: Path | None = options["out"]
        csv_dir: Path | None = options["csv_dir"]
        if out is None and csv_dir is None:
            raise CommandError("Say where to write: --out report.xlsx, --csv-dir DIR, or both.")
        if out is not None:
            if out.suffix.lower() != ".xlsx":
                raise CommandError(f"--out {out}: the workbook's name must end in .xlsx.")
            _writable_folder(out.parent, "--out")
        if csv_dir is not None:
            _writable_folder(csv_dir, "--csv-dir")
        if options["resamples"] < 0:
            raise CommandError("--resamples cannot be negative.")
        campaign = named_or_numbered(
            Campaign.objects.select_related("rubric"), options["campaign"], "annotation campaign"
        )
        result = self._result(campaign, options["resamples"], options["recompute"])
        if out is not None:
            workbook.write_report_workbook(str(out), campaign, result)
            self.stdout.write(self.style.SUCCESS(f"Wrote {out}"))
        if csv_dir is not None:
            slugs = workbook.table_slugs()
            for slug in slugs:
                target = csv_dir / f"{slug}.csv"
                with target.open("w", encoding="utf-8-sig", newline="") as stream:
                    workbook.write_report_csv(stream, campaign, result, slug)
            self.stdout.write(self.style.SUCCESS(f"Wrote {len(slugs)} CSV files to {csv_dir}"))

    def _result(self, campaign: Campaign, resamples: int, recompute: bool) -> dict[str, Any]:
        state = cache.report_state(campaign)
        if state.result is not None and state.fresh and not recompute:
            self.stderr.write(f"Using the report computed {state.result['computed_at']}.")
            return state.result
        shown: list[str] = []

        def show(job: Job) -> None:
            if job.message and job.message not in shown:
                shown.append(job.message)
                total = f"/{job.total}" if job.total else ""
                self.stderr.write(f"[{job.done}{total}] {job.message}")

        job = cache.run_report(campaign, resamples=resamples, on_progress=show)
        if job.status != Job.Status.DONE:
            raise CommandError(
                "Computing the report failed: " + ("; ".join(job.errors) or job.message)
            )
        result: dict[str, Any] = job.result
        return result
