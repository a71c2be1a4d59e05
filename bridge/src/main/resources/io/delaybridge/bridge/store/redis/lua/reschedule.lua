--[[
  reschedule: move a pending message to a new due time (the admin API's reschedule and fire-now).

  KEYS[1] due        zset  member -> due ms
  KEYS[2] inflight   zset  member -> lease deadline ms
  KEYS[3] inc        string  the store's incarnation, as copied into this shard
  ARGV[1] member     the message's member
  ARGV[2] dueAt      the new due time, epoch ms, decimal
  ARGV[3] channel    the shard's wake channel (a channel, not a key)
  ARGV[4] incarnation  the incarnation the caller connected to
  ARGV[5] publish    PUBLISH, or SPUBLISH on a Redis 7 cluster (sharded pub/sub)

  Steps
  1. The shard's incarnation must be ARGV[4]: else INCARNATION_MISMATCH.
  2. A member in flight is not moved: its send is under way (IN_FLIGHT). A member in neither set: NOT_FOUND.
  3. ZADD XX the new due time. The payload and the attempt count stay as they are.
  4. If the new due time is earlier than the shard's earliest due time before, publish it on the wake channel, so
     the owner's pump wakes up for it (fire-now).

  Returns 7 RESCHEDULED, 8 IN_FLIGHT, 5 NOT_FOUND, -2 INVALID_ARGUMENT, -3 INCARNATION_MISMATCH.
]]
--#include lanes.lua
if redis.call('GET', KEYS[3]) ~= ARGV[4] then
  return -3
end
local dueAt = tonumber(ARGV[2])
if not dueAt then
  return -2
end
local member = ARGV[1]
lanes_at(KEYS[1])
local lane = lane_of_member(member)
if lane_score(member, lane) == false then
  if redis.call('ZSCORE', KEYS[2], member) == false then
    return 5
  end
  return 8
end
local first = lanes_first()
lane_remove(member, lane)
lanes_add({ARGV[2], member}, {lane})
if first == nil or first > dueAt then
  redis.call(ARGV[5], ARGV[3], ARGV[2])
end
return 7
