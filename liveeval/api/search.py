"""Searching through the booking API: flights, trains, hotels and the list of cities, as plain
functions over a ``World`` shared by the endpoints and the LLM agent's tools.
"""

from __future__ import annotations

from liveeval.api.errors import ApiError
from liveeval.api.parameters import (
    MAX_NIGHTS,
    SEARCH_PARAMETERS,
    Params,
    choice_param,
    city_param,
    date_param,
    integer_param,
    only_known,
    optional,
    required,
    text_param,
    travel_params,
)
from liveeval.api.serialisation import flight_json, hotel_json, train_json
from liveeval.booking.models import City
from liveeval.booking.offers import (
    CABINS,
    ROOM_TYPES,
    TRAIN_SEATS,
    TRAIN_TYPES,
    World,
)


def search_flights(world: World, params: Params) -> dict[str, object]:
    travel = travel_params(params, "flight")
    offers = world.search_flights(
        travel.pop("from_city"),
        travel.pop("to_city"),
        travel.pop("date"),
        cabin=optional(params, "cabin", choice_param, CABINS),
        **travel,
    )
    return {"flights": [flight_json(offer) for offer in offers]}


def search_trains(world: World, params: Params) -> dict[str, object]:
    travel = travel_params(params, "train")
    train_type = optional(params, "train_type", text_param)
    if train_type is not None and train_type.upper() not in TRAIN_TYPES:
        raise ApiError(
            "bad_parameter",
            f"train_type must be one of {', '.join(TRAIN_TYPES)}, not {train_type!r}",
            "train_type",
        )
    offers = world.search_trains(
        travel.pop("from_city"),
        travel.pop("to_city"),
        travel.pop("date"),
        seat=optional(params, "seat", choice_param, TRAIN_SEATS),
        train_type=train_type.upper() if train_type is not None else None,
        **travel,
    )
    return {"trains": [train_json(offer) for offer in offers]}


def search_hotels(world: World, params: Params) -> dict[str, object]:
    only_known(params, SEARCH_PARAMETERS["hotel"])
    offers = world.search_hotels(
        city_param(required(params, "city"), "city"),
        date_param(required(params, "check_in"), "check_in"),
        integer_param(required(params, "nights"), "nights", 1, MAX_NIGHTS),
        min_stars=optional(params, "min_stars", integer_param, 1, 5),
        max_price=optional(params, "max_price", integer_param, 1),
        room_type=optional(params, "room_type", choice_param, ROOM_TYPES),
    )
    return {"hotels": [hotel_json(offer) for offer in offers]}


def cities() -> dict[str, object]:
    return {
        "cities": [
            {"name": name, "name_en": name_en, "code": code}
            for name, name_en, code in City.objects.values_list("name", "name_en", "code")
        ]
    }
