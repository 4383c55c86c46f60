"""The booking API for outside systems (routes in ``liveeval.api_urls``)."""
