"""The abuse suite reuses the booking API's hand-made world, the scripted systems and the
counting job kind."""

import testing.counting  # noqa: F401 - registers the kind with the job runner
from tests.liveeval.conftest import fake_systems  # noqa: F401 - a fixture
from tests.liveeval.test_booking_api import world  # noqa: F401 - a fixture
