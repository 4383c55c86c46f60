"""A job worker with the test job kinds registered: ``python -m testing.job_worker [options]``.

It is ``manage.py job_worker`` (same options) in a process that also knows the counting job
kind (``testing.counting``), for tests and benchmarks that start worker processes.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from testing import counting  # noqa: F401 - registers the counting job kind

    call_command("job_worker", *sys.argv[1:])


if __name__ == "__main__":
    main()
