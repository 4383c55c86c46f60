"""The job runner's tests run a counting job kind of their own, ``testing.count``."""

from __future__ import annotations

import testing.counting  # noqa: F401 - registers the kind with the job runner
