"""EvalSite's ASGI application with the test job kinds registered, for daphne in tests.

Serve ``testing.asgi:application`` (see ``testing.servers.Daphne``) where a test starts a
counting job through the site's pages; everything else is the served application itself.
"""

from __future__ import annotations

# evalsite.asgi sets Django up first; then the counting job kind registers in this process.
from evalsite.asgi import application
from testing import counting  # noqa: F401

__all__ = ["application"]
