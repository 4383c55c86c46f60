"""Refusals of the booking API: ``ApiError`` with a stable code, and the HTTP status of each."""

from __future__ import annotations

from liveeval.booking.offers import (
    BookingError,
)

STATUS_BY_CODE: dict[str, int] = {
    "bad_parameter": 400,
    "bad_token": 401,
    "session_not_open": 403,
    "campaign_archived": 403,
    "unknown_item": 404,
    "unknown_option": 404,
    "not_found": 404,
    "unknown_endpoint": 404,
    "method_not_allowed": 405,
    "sold_out": 409,
    "already_cancelled": 409,
    "booking_limit": 409,
    "too_many_requests": 429,
    "internal_error": 500,
}


class ApiError(Exception):
    """A request the booking API refuses, with a stable code and the parameter at fault."""

    def __init__(
        self, code: str, message: str, field: str | None = None, retry_after: int | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after

    def as_json(self) -> dict[str, object]:
        return {"error": {"code": self.code, "message": self.message, "field": self.field}}


def refusal(error: BookingError) -> ApiError:
    """The API's form of a refusal by the booking world."""
    return ApiError(error.code, error.message)
