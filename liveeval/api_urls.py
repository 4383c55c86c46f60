"""The booking API's routes, mounted at ``/api/booking/``.

A trailing slash is optional on every endpoint, and any other path under the
mount answers a JSON ``unknown_endpoint`` error rather than an HTML page.
"""

from __future__ import annotations

from django.urls import path, re_path

from liveeval.api import views

app_name = "booking_api"

urlpatterns = [
    path("", views.index, name="index"),
    re_path(r"^cities/?$", views.city_list, name="cities"),
    re_path(r"^flights/?$", views.flights, name="flights"),
    re_path(r"^trains/?$", views.trains, name="trains"),
    re_path(r"^hotels/?$", views.hotels, name="hotels"),
    re_path(r"^bookings/?$", views.bookings, name="bookings"),
    re_path(r"^book/?$", views.make_booking, name="book"),
    re_path(r"^cancel/?$", views.cancel_booking, name="cancel"),
    re_path(r"^(?P<path>.+)$", views.unknown_endpoint),
]
