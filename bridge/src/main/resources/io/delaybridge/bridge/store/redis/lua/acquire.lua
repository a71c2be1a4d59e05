--[[
  acquire: take ownership of a shard by raising its fencing epoch, and hand over at once what earlier owners left in
  flight. Every script that changes the shard on behalf of an owner (claim, ack, retry, reclaim) refuses any other
  epoch, so an owner that lost the shard (GC pause, network cut, kill -9) can no longer claim, ack or move its
  messages. Nothing can ack what it left in flight either: waiting for those leases (pump.lease) would only delay
  them, so they go back to the due set now.

  KEYS[1] epoch      string  the shard's fencing epoch
  KEYS[2] due        zset  member -> due ms
  KEYS[3] inflight   zset  member -> lease deadline ms
  KEYS[4] attempts   hash  member -> earlier attempts
  ARGV[1] max        hand over at most this many in-flight messages (>= 1); the rest return when their leases end
  ARGV[2] channel    the shard's wake channel (a channel, not a key)
  ARGV[3] publish    PUBLISH, or SPUBLISH on a Redis 7 cluster (sharded pub/sub)

  Steps
  1. PERSIST the epoch (it never expires anyway). At maxmemory Redis refuses a script's first write if that write may
     grow memory, as INCR may, but never stops a script that has already written. PERSIST cannot grow memory, so it
     goes first: on a full Redis a new owner must still be able to take a shard over and drain it.
  2. INCR the epoch. Every member of the in-flight set now belongs to an older, fenced owner.
  3. now = Redis TIME in ms. Take up to max in-flight members, earliest lease first; for each: remove it from
     in-flight, add it to due at now, count the attempt (as reclaim does: it may already have reached its target, so
     the next delivery carries a higher delay-attempt). Variadic ZREM/ZADD in parts of 1,000 members.
  4. If any moved and now is earlier than the shard's earliest due time before, publish now on the wake channel.

  Returns {new epoch (>= 1), members handed over, members left in flight}, or {-2} INVALID_ARGUMENT.
]]
--#include lanes.lua
local max = tonumber(ARGV[1])
if not max or max < 1 then
  return {-2}
end
redis.call('PERSIST', KEYS[1])
local epoch = redis.call('INCR', KEYS[1])

local held = redis.call('ZRANGE', KEYS[3], 0, max - 1)
if #held == 0 then
  return {epoch, 0, 0}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local nowText = string.format('%d', now)
lanes_at(KEYS[2])
local first = lanes_first()
local part = 1000
for from = 1, #held, part do
  local to = math.min(from + part - 1, #held)
  local members, scored, m = {}, {}, 0
  for j = from, to do
    m = m + 1
    members[m] = held[j]
    scored[2 * m - 1] = nowText
    scored[2 * m] = held[j]
  end
  redis.call('ZREM', KEYS[3], unpack(members))
  local lanes = {}
  for j = 1, m do
    lanes[j] = lane_of_member(members[j])
  end
  lanes_add(scored, lanes)
  for j = 1, m do
    redis.call('HINCRBY', KEYS[4], members[j], 1)
  end
end
if first == nil or first > now then
  redis.call(ARGV[3], ARGV[2], now)
end
return {epoch, #held, redis.call('ZCARD', KEYS[3])}
