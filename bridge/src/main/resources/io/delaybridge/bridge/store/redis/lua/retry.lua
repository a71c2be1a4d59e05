--[[
  retry: put a message whose delivery failed back into the due set, later, with one more attempt counted.

  KEYS[1] due        zset  member -> due ms
  KEYS[2] inflight   zset  member -> lease deadline ms
  KEYS[3] attempts   hash  member -> earlier attempts
  KEYS[4] epoch      string  the shard's fencing epoch
  ARGV[1] epoch      the caller's epoch
  ARGV[2] member     the message's member
  ARGV[3] retryAt    the new due time, epoch ms, decimal
  ARGV[4] channel    the shard's wake channel (a channel, not a key)
  ARGV[5] publish    PUBLISH, or SPUBLISH on a Redis 7 cluster (sharded pub/sub)

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED.
  2. Only a member still in flight moves (one replaced or cancelled meanwhile does not): remove it from in-flight,
     add it to due at retryAt, count the attempt.
  3. If retryAt is earlier than the shard's earliest due time before, publish it on the wake channel.

  Returns 1 moved, 0 not in flight, -1 FENCED, -2 INVALID_ARGUMENT.
]]
--#include lanes.lua
if redis.call('GET', KEYS[4]) ~= ARGV[1] then
  return -1
end
local retryAt = tonumber(ARGV[3])
if not retryAt then
  return -2
end
if redis.call('ZREM', KEYS[2], ARGV[2]) == 0 then
  return 0
end
lanes_at(KEYS[1])
local first = lanes_first()
lanes_add({ARGV[3], ARGV[2]}, {lane_of_member(ARGV[2])})
redis.call('HINCRBY', KEYS[3], ARGV[2], 1)
if first == nil or first > retryAt then
  redis.call(ARGV[5], ARGV[4], ARGV[3])
end
return 1
