"""The socket that tells a coordinator's campaign pages that their campaign changed."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group, User

from annotation import queue
from annotation.imports.rows import import_rows
from annotation.models import Campaign as AnnotationCampaign
from evalsite import live_changes, roles
from evalsite.asgi import application
from evalsite.socket_revocation import REVOKED_CODE
from tests.annotation.conftest import dialogue
from tests.channels_auth import session_headers
from tests.liveeval.conftest import judged_session, make_campaign, make_system

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def annotation_campaign() -> AnnotationCampaign:
    import_rows("Watched", [dialogue("w1"), dialogue("w2")])
    return AnnotationCampaign.objects.get(name="Watched")


async def connect(user: User | None, path: str) -> tuple[WebsocketCommunicator, bool]:
    headers = (
        await session_headers(user)
        if user is not None
        else [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    )
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def test_a_coordinator_hears_of_each_annotation_once(
    coordinator: User, annotator: User
) -> None:
    campaign = await annotation_campaign()
    communicator, connected = await connect(
        coordinator, f"/ws/changes/annotation.campaign/{campaign.pk}/"
    )
    assert connected is True
    # Two items held in a row: the page is told once, not twice.
    await database_sync_to_async(queue.next_for)(annotator, campaign)
    await database_sync_to_async(queue.next_for)(annotator, campaign)
    assert await communicator.receive_from(timeout=3) == "changed"
    assert await communicator.receive_nothing(timeout=live_changes.COALESCE_SECONDS + 0.3)
    await communicator.disconnect()


async def test_another_campaigns_changes_are_not_heard(coordinator: User, annotator: User) -> None:
    campaign = await annotation_campaign()
    communicator, connected = await connect(
        coordinator, f"/ws/changes/annotation.campaign/{campaign.pk + 1}/"
    )
    # The other campaign does not exist: nothing to watch.
    assert connected is False
    communicator, connected = await connect(
        coordinator, f"/ws/changes/annotation.campaign/{campaign.pk}/"
    )
    await database_sync_to_async(live_changes.changed)("annotation.campaign", campaign.pk + 1)
    assert await communicator.receive_nothing(timeout=live_changes.COALESCE_SECONDS + 0.3)
    await communicator.disconnect()


async def test_a_live_campaign_page_hears_a_conversation_start(
    coordinator: User, judge: User
) -> None:
    campaign = await database_sync_to_async(make_campaign)()
    system = await database_sync_to_async(make_system)("builtin", "reference-live", "A")
    communicator, connected = await connect(
        coordinator, f"/ws/changes/liveeval.campaign/{campaign.pk}/"
    )
    assert connected is True
    await database_sync_to_async(judged_session)(judge, system, campaign)
    assert await communicator.receive_from(timeout=3) == "changed"
    await communicator.disconnect()


@pytest.mark.parametrize("who", ["anonymous", "annotator", "judge"])
async def test_only_coordinators_may_watch(
    who: str, annotator: User, judge: User, coordinator: User
) -> None:
    campaign = await annotation_campaign()
    user = {"anonymous": None, "annotator": annotator, "judge": judge}[who]
    communicator, connected = await connect(user, f"/ws/changes/annotation.campaign/{campaign.pk}/")
    assert connected is False
    await communicator.disconnect()


async def test_an_unknown_topic_is_refused(coordinator: User) -> None:
    communicator, connected = await connect(coordinator, "/ws/changes/nothing.here/1/")
    assert connected is False
    await communicator.disconnect()


async def test_a_deactivated_coordinators_socket_closes_at_once(coordinator: User) -> None:
    campaign = await annotation_campaign()
    communicator, connected = await connect(
        coordinator, f"/ws/changes/annotation.campaign/{campaign.pk}/"
    )
    assert connected is True

    def deactivate() -> None:
        coordinator.is_active = False
        coordinator.save(update_fields=["is_active"])

    await database_sync_to_async(deactivate)()
    closed = await communicator.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": REVOKED_CODE}
    await communicator.disconnect()


@pytest.mark.parametrize("side", ["user", "group", "user-clear"])
async def test_a_coordinators_socket_closes_when_they_leave_the_coordinators(
    coordinator: User, side: str
) -> None:
    campaign = await annotation_campaign()
    path = f"/ws/changes/annotation.campaign/{campaign.pk}/"
    communicator, connected = await connect(coordinator, path)
    assert connected is True

    def remove() -> None:
        group = Group.objects.get(name=roles.COORDINATORS)
        if side == "user":
            coordinator.groups.remove(group)
        elif side == "user-clear":
            coordinator.groups.clear()
        else:
            group.user_set.remove(coordinator)

    await database_sync_to_async(remove)()
    closed = await communicator.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": REVOKED_CODE}
    await communicator.disconnect()
    # The page reconnects, and is refused now.
    again, connected = await connect(coordinator, path)
    assert connected is False
    await again.disconnect()


async def test_clearing_the_coordinators_group_closes_every_former_members_socket(
    coordinator: User, user_factory: Callable[..., User]
) -> None:
    other = await database_sync_to_async(user_factory)("cyd", roles.COORDINATORS)
    campaign = await annotation_campaign()
    path = f"/ws/changes/annotation.campaign/{campaign.pk}/"
    sockets = []
    for user in (coordinator, other):
        communicator, connected = await connect(user, path)
        assert connected is True
        sockets.append(communicator)

    def clear() -> None:
        Group.objects.get(name=roles.COORDINATORS).user_set.clear()

    await database_sync_to_async(clear)()
    for communicator in sockets:
        closed = await communicator.receive_output(timeout=3)
        assert closed == {"type": "websocket.close", "code": REVOKED_CODE}
        await communicator.disconnect()
