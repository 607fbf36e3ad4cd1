"""The sliding-window log in Redis, shared by every gateway replica.

One Lua script per request prunes, counts and logs atomically on the server, so two replicas
can never both read "19" and both admit. Time is Redis's own clock (`TIME`), so replicas with
skewed clocks still share one window. Scores are milliseconds: 13 digits survive Lua's number
to string conversion, which microseconds would not.
"""

from __future__ import annotations

from redis.asyncio import Redis

from printcloud.api_gateway.domain.rate_limits import WINDOW_SECONDS, RateDecision, decision

_SLIDING_WINDOW = """
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < tonumber(ARGV[1]) then
  -- The count makes members unique within one millisecond: it grows with every admission there.
  redis.call('ZADD', KEYS[1], now, time[1] .. '.' .. time[2] .. '-' .. count)
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {allowed, count, tonumber(oldest[2]), now}
"""

_WINDOW_MS = int(WINDOW_SECONDS * 1000)


class RedisWindow:
    def __init__(self, redis: Redis, limit: int, key_prefix: str) -> None:
        self.redis = redis
        self.limit = limit
        self.key_prefix = key_prefix
        self._script = redis.register_script(_SLIDING_WINDOW)

    @classmethod
    def connect(cls, url: str, limit: int, key_prefix: str, timeout_seconds: float) -> RedisWindow:
        # Short timeouts: a request waits on this, and a slow store is treated like a missing one.
        redis = Redis.from_url(url, socket_timeout=timeout_seconds, socket_connect_timeout=timeout_seconds)
        return cls(redis, limit, key_prefix)

    async def hit(self, principal: str) -> RateDecision:
        allowed, in_window, oldest_ms, now_ms = await self._script(
            keys=[self.key_prefix + principal], args=[self.limit, _WINDOW_MS]
        )
        return decision(self.limit, bool(allowed), int(in_window), int(oldest_ms) / 1000, int(now_ms) / 1000)

    async def close(self) -> None:
        await self.redis.aclose()
