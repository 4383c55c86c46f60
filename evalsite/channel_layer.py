"""The Redis channel layer, telling this process's sockets when it has subscribed again.

Redis's publish/subscribe keeps nothing for a subscriber that is away: when Redis restarts, a
process is subscribed again only once its connection is made again, and every frame published
in between is lost to its sockets. `ResubscribingPubSubLayer` is channels-redis's
``RedisPubSubChannelLayer`` whose connection, on every reconnect after the first connect, puts a
``layer.resubscribed`` message in the queue of each socket of this process, after it has sent its
subscriptions again. A consumer then sends its page what it may have missed, read from the
database, which holds everything a frame ever showed (`liveeval.consumers.ChatConsumer`).
(Closing the sockets for the pages to reconnect is not open to us: daphne sends no close code
htmx's ws extension reconnects after.)

It reaches into channels-redis 4's pub/sub module (the per-loop layer and its shard
connection), whose structure the tests of the chat under a Redis restart hold.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels_redis import pubsub
from channels_redis.utils import _wrap_close, create_pool, decode_hosts
from redis import asyncio as aioredis
from redis.asyncio.client import PubSub

logger = logging.getLogger(__name__)

RESUBSCRIBED = {"type": "layer.resubscribed"}


class _PubSub(PubSub):
    """A subscription connection that tells of each connect after its first one, once its
    subscriptions are sent again."""

    def __init__(self, shard: _Shard, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shard = shard
        self._connected_once = False

    async def connect(self) -> None:
        await super().connect()
        self._connected_once = True

    async def on_connect(self, connection: Any) -> None:
        await super().on_connect(connection)
        if self._connected_once:
            self._shard.tell_resubscribed()


class _Shard(pubsub.RedisSingleShardConnection):
    _redis: Any
    _pubsub: Any
    host: Any
    channel_layer: Any

    def _ensure_redis(self) -> None:
        if self._redis is None:
            pool = create_pool(self.host)
            self._redis = aioredis.Redis(connection_pool=pool)
            self._pubsub = _PubSub(self, pool)

    def tell_resubscribed(self) -> None:
        logger.warning("subscribed to Redis again; telling %d socket(s)", len(self._local()))
        message = self.channel_layer.channel_layer.serialize(RESUBSCRIBED)
        for queue in self._local():
            queue.put_nowait(message)

    def _local(self) -> list[asyncio.Queue[Any]]:
        return list(self.channel_layer.channels.values())


class _LoopLayer(pubsub.RedisPubSubLoopLayer):
    def __init__(self, *args: Any, hosts: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, hosts=hosts, **kwargs)
        self._shards = [_Shard(host, self) for host in decode_hosts(hosts)]


class ResubscribingPubSubLayer(pubsub.RedisPubSubChannelLayer):
    def _get_layer(self) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return self._layers[loop]
        except KeyError:
            layer = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
            return layer
