"""The booking world: cities, flights, trains and hotels, and the bookings made in it.

Availability lives in its own rows (a flight's cabin, a train's seat class, a
hotel room type on one night), so that booking can decrement it with one
conditional UPDATE and never oversell, whichever process or connection books.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class City(models.Model):
    name = models.CharField(_("Chinese name"), max_length=32, unique=True)
    name_en = models.CharField(_("English name"), max_length=64, unique=True)
    code = models.CharField(_("code"), max_length=8, unique=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = _("cities")

    def __str__(self) -> str:
        return self.name


class Flight(models.Model):
    number = models.CharField(_("flight number"), max_length=16)
    airline = models.CharField(_("airline"), max_length=32)
    airline_en = models.CharField(_("airline (English)"), max_length=64)
    from_city = models.ForeignKey(City, on_delete=models.CASCADE, related_name="+")
    to_city = models.ForeignKey(City, on_delete=models.CASCADE, related_name="+")
    date = models.DateField(_("date"))
    depart = models.TimeField(_("departure"))
    arrive = models.TimeField(_("arrival"))

    class Meta:
        ordering = ["date", "depart", "number"]
        indexes = [models.Index(fields=["from_city", "to_city", "date", "depart"])]
        constraints = [
            models.UniqueConstraint(fields=["number", "date"], name="flight_unique_number_date")
        ]

    def __str__(self) -> str:
        return f"{self.number} {self.date}"


class FlightCabin(models.Model):
    flight = models.ForeignKey(Flight, on_delete=models.CASCADE, related_name="cabins")
    cabin = models.CharField(_("cabin"), max_length=16)
    price = models.PositiveIntegerField(_("price"))
    discount = models.FloatField(_("discount"), help_text=_("Price as a share of the full fare."))
    seats_left = models.PositiveIntegerField(_("seats left"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["flight", "cabin"], name="flightcabin_unique"),
            models.CheckConstraint(
                condition=models.Q(seats_left__gte=0), name="flightcabin_seats_non_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.flight_id} {self.cabin}"


class Train(models.Model):
    number = models.CharField(_("train number"), max_length=16)
    train_type = models.CharField(_("type"), max_length=1)
    from_city = models.ForeignKey(City, on_delete=models.CASCADE, related_name="+")
    to_city = models.ForeignKey(City, on_delete=models.CASCADE, related_name="+")
    date = models.DateField(_("date"))
    depart = models.TimeField(_("departure"))
    arrive = models.TimeField(_("arrival"))
    duration_minutes = models.PositiveIntegerField(_("duration (minutes)"))

    class Meta:
        ordering = ["date", "depart", "number"]
        indexes = [models.Index(fields=["from_city", "to_city", "date", "depart"])]
        constraints = [
            models.UniqueConstraint(fields=["number", "date"], name="train_unique_number_date")
        ]

    def __str__(self) -> str:
        return f"{self.number} {self.date}"


class TrainSeat(models.Model):
    train = models.ForeignKey(Train, on_delete=models.CASCADE, related_name="seats")
    seat = models.CharField(_("seat class"), max_length=16)
    price = models.PositiveIntegerField(_("price"))
    seats_left = models.PositiveIntegerField(_("seats left"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["train", "seat"], name="trainseat_unique"),
            models.CheckConstraint(
                condition=models.Q(seats_left__gte=0), name="trainseat_seats_non_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.train_id} {self.seat}"


class Hotel(models.Model):
    city = models.ForeignKey(City, on_delete=models.CASCADE, related_name="hotels")
    name = models.CharField(_("Chinese name"), max_length=64)
    name_en = models.CharField(_("English name"), max_length=128)
    district = models.CharField(_("district"), max_length=32)
    stars = models.PositiveSmallIntegerField(_("stars"))
    rating = models.FloatField(_("rating"))

    class Meta:
        ordering = ["city", "-stars", "name"]
        constraints = [models.UniqueConstraint(fields=["city", "name"], name="hotel_unique_name")]

    def __str__(self) -> str:
        return self.name


class HotelRoom(models.Model):
    """One room type of a hotel on one night, with its price and the rooms left."""

    hotel = models.ForeignKey(Hotel, on_delete=models.CASCADE, related_name="rooms")
    room_type = models.CharField(_("room type"), max_length=16)
    date = models.DateField(_("night of"))
    price = models.PositiveIntegerField(_("nightly price"))
    rooms_left = models.PositiveIntegerField(_("rooms left"))

    class Meta:
        indexes = [models.Index(fields=["date", "room_type"])]
        constraints = [
            models.UniqueConstraint(fields=["hotel", "room_type", "date"], name="hotelroom_unique"),
            models.CheckConstraint(
                condition=models.Q(rooms_left__gte=0), name="hotelroom_rooms_non_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.hotel_id} {self.room_type} {self.date}"


class Booking(models.Model):
    """A booking a system made for one conversation."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        CANCELLED = "cancelled", _("Cancelled")

    session = models.ForeignKey(
        "liveeval.ChatSession", on_delete=models.CASCADE, related_name="bookings"
    )
    reference = models.CharField(_("reference"), max_length=32, unique=True)
    domain = models.CharField(_("domain"), max_length=8)
    item_id = models.PositiveIntegerField(_("item"))
    option = models.CharField(_("class or room type"), max_length=16)
    price = models.PositiveIntegerField(_("price"))
    details = models.JSONField(_("details"), default=dict)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.ACTIVE
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    cancelled_at = models.DateTimeField(_("cancelled"), null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.reference} ({self.domain}, {self.status})"
