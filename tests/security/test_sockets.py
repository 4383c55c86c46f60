"""Open sockets: closed when access goes, refusing what a closed session cannot take."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group, User
from django.test import Client

from evalsite import jobs, roles
from evalsite.asgi import application
from evalsite.socket_revocation import REVOKED_CODE
from liveeval.campaigns import close_campaign
from liveeval.consumers import ENDED_CLOSE_CODE
from liveeval.models import Campaign, Message
from tests.channels_auth import session_headers
from tests.liveeval.test_consumers import connect, echo_session, receive_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fake_systems")]


async def closed_with(communicator: WebsocketCommunicator) -> int | None:
    output = await communicator.receive_output(timeout=5)
    while output["type"] != "websocket.close":
        output = await communicator.receive_output(timeout=5)
    return output.get("code")


@database_sync_to_async
def deactivate(user: User) -> None:
    user.is_active = False
    user.save(update_fields=["is_active"])


@database_sync_to_async
def drop_role(user: User, role: str) -> None:
    user.groups.remove(Group.objects.get(name=role))


@database_sync_to_async
def change_password(user: User) -> None:
    user.set_password("another-correct-horse")
    user.save()


@database_sync_to_async
def sign_out(user: User) -> None:
    client = Client()
    client.force_login(user)
    client.logout()


@database_sync_to_async
def toggle_staff(user: User) -> None:
    User.objects.filter(pk=user.pk).update(is_staff=True)
    user.refresh_from_db()
    user.is_staff = False
    user.save(update_fields=["is_staff"])


@pytest.mark.parametrize(
    "change", ["deactivate", "drop_role", "password", "sign out", "loses staff"]
)
async def test_a_judge_who_loses_access_is_cut_off_at_once(judge: User, change: str) -> None:
    session = await echo_session(judge)
    connected, communicator = await connect(judge, session)
    assert connected
    await receive_until(communicator, "chat-log")
    if change == "deactivate":
        await deactivate(judge)
    elif change == "drop_role":
        await drop_role(judge, roles.JUDGES)
    elif change == "password":
        await change_password(judge)
    elif change == "sign out":
        await sign_out(judge)
    else:
        await toggle_staff(judge)
    assert await closed_with(communicator) == REVOKED_CODE
    await communicator.disconnect()


@database_sync_to_async
def sign_in_again(user: User) -> None:
    user.refresh_from_db()
    user.save(update_fields=["last_login"])


async def test_a_save_that_changes_no_access_leaves_the_socket_open(judge: User) -> None:
    session = await echo_session(judge)
    connected, communicator = await connect(judge, session)
    assert connected
    await receive_until(communicator, "chat-log")
    await sign_in_again(judge)
    assert await communicator.receive_nothing(timeout=0.5)
    await communicator.disconnect()


@pytest.mark.parametrize("change", ["deactivate", "delete"])
async def test_a_job_page_socket_closes_when_its_user_goes(coordinator: User, change: str) -> None:
    job = await database_sync_to_async(jobs.create)("testing.count", {}, user=coordinator)
    headers = await session_headers(coordinator)
    communicator = WebsocketCommunicator(application, f"/ws/jobs/{job.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    await communicator.receive_from(timeout=5)
    if change == "deactivate":
        await deactivate(coordinator)
    else:
        await database_sync_to_async(coordinator.delete)()
    assert await closed_with(communicator) == REVOKED_CODE
    await communicator.disconnect()


async def test_a_nul_message_is_refused_with_a_visible_notice(judge: User) -> None:
    session = await echo_session(judge)
    connected, communicator = await connect(judge, session)
    assert connected
    await receive_until(communicator, "chat-log")
    await communicator.send_json_to({"message": "hi\x00there"})
    frame = await communicator.receive_from(timeout=5)
    assert 'id="chat-alert"' in frame and "NUL" in frame
    assert not await database_sync_to_async(Message.objects.filter(session=session).exists)()
    # The socket stays open and the next message goes through.
    await communicator.send_json_to({"message": "hello"})
    frames = await receive_until(communicator, "echo: hello")
    assert frames
    await communicator.disconnect()


async def test_a_message_with_a_lone_surrogate_is_refused_with_a_visible_notice(
    judge: User,
) -> None:
    session = await echo_session(judge)
    connected, communicator = await connect(judge, session)
    assert connected
    await receive_until(communicator, "chat-log")
    # JSON carries the unpaired surrogate as an escape, which decodes to it.
    await communicator.send_json_to({"message": "hi\ud800there"})
    frame = await communicator.receive_from(timeout=5)
    assert 'id="chat-alert"' in frame and "broken character" in frame
    assert not await database_sync_to_async(Message.objects.filter(session=session).exists)()
    await communicator.send_json_to({"message": "hello"})
    assert await receive_until(communicator, "echo: hello")
    await communicator.disconnect()


async def test_closing_the_campaign_ends_an_open_chat(judge: User) -> None:
    session = await echo_session(judge)
    connected, communicator = await connect(judge, session)
    assert connected
    await receive_until(communicator, "chat-log")
    campaign = await database_sync_to_async(Campaign.objects.get)(pk=session.campaign_id)
    await database_sync_to_async(close_campaign)(campaign)
    await receive_until(communicator, "chat-status")
    # The page shows the ended state and the socket closes for good: nothing more is taken.
    closing = await communicator.receive_output(timeout=5)
    assert closing == {"type": "websocket.close", "code": ENDED_CLOSE_CODE}
    assert not await database_sync_to_async(Message.objects.filter(session=session).exists)()
