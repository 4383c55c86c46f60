"""Instances sharing one Redis server do not hear each other's channel groups.

Redis's publish/subscribe ignores the database number: another instance's ``group_send`` put
HTML into a judge's chat and closed sockets with 4403. Each instance now names its channels,
groups and cache keys under its own prefix (``tests/evalsite/test_settings.py`` checks that
each instance gets its own by default).
"""

from __future__ import annotations

import asyncio

import pytest
from channels_redis.pubsub import RedisPubSubChannelLayer

pytestmark = pytest.mark.services


async def test_a_group_message_of_another_instance_is_not_heard(services: dict[str, str]) -> None:
    url = services["REDIS_URL"]
    ours = RedisPubSubChannelLayer(hosts=[url], prefix="evalsite.0")
    theirs = RedisPubSubChannelLayer(hosts=[url], prefix="evalsite.1")
    same = RedisPubSubChannelLayer(hosts=[url], prefix="evalsite.0")
    try:
        channel = await ours.new_channel()
        await ours.group_add("chat-1", channel)
        await asyncio.sleep(0.2)
        await theirs.group_send("chat-1", {"type": "chat.frame", "html": "<b>injected</b>"})
        await asyncio.sleep(0.3)
        await same.group_send("chat-1", {"type": "chat.frame", "html": "ours"})
        # Had the other instance's message arrived, it would be received first.
        message = await asyncio.wait_for(ours.receive(channel), timeout=5)
        assert message["html"] == "ours"
    finally:
        for layer in (ours, theirs, same):
            await layer.flush()
