"""The booking API's routes, mounted at ``/api/booking/``.

A trailing slash is optional on every endpoint, and any other path under the
mount answers a JSON ``unknown_endpoint`` error rather than an HTML page.
"""

from __future__ import annotations

from django.urls import path, re_path

from liveeval import api

app_name = "booking_api"

urlpatterns = [
    path("", api.index, name="index"),
    re_path(r"^cities/?$", api.city_list, name="cities"),
    re_path(r"^flights/?$", api.flights, name="flights"),
    re_path(r"^trains/?$", api.trains, name="trains"),
    re_path(r"^hotels/?$", api.hotels, name="hotels"),
    re_path(r"^bookings/?$", api.bookings, name="bookings"),
    re_path(r"^book/?$", api.make_booking, name="book"),
    re_path(r"^cancel/?$", api.cancel_booking, name="cancel"),
    re_path(r"^(?P<path>.+)$", api.unknown_endpoint),
]
