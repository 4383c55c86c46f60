"""EvalSite's ASGI application with the test job kinds registered, for daphne in tests.

Serve ``testing.asgi:application`` (see ``testing.servers.Daphne``) where a test starts a
counting job through the site's pages; everything else is the served application itself.
"""

from __future__ import annotations

from evalsite.asgi import application
from testing import counting

__all__ = ["application", "counting"]
