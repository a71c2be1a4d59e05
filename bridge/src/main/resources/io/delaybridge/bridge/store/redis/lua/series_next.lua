--[[
  series_next: settle delivered occurrences of series and, in the same step, store each one's next occurrence, so that
  a crash never stops a series nor delivers an occurrence twice beyond the lease's at-least-once repeat.

  KEYS[1] inflight   zset  member -> lease deadline ms
  KEYS[2] msg        hash  member -> stored value
  KEYS[3] attempts   hash  member -> earlier attempts
  KEYS[4] epoch      string  the shard's fencing epoch
  KEYS[5] due        zset  member -> due ms
  ARGV[1] epoch      the caller's epoch
  ARGV[2] channel    the shard's wake channel (a channel, not a key)
  ARGV[3] publish    PUBLISH, or SPUBLISH on a Redis 7 cluster (sharded pub/sub)
  ARGV[4..] steps    3 arguments per settled occurrence:
    member   the series' member
    next     the next occurrence's due time, epoch ms, decimal; empty when the series is over
    value    the stored value for the next occurrence (origin header + envelope naming it pending); empty when over

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED.
  2. For each member still in flight: remove it from in-flight and forget its attempts; then, if the series goes on,
     store the new value and index the next due time, else delete the value. A member no longer in flight was
     replaced or cancelled while its occurrence was being delivered (or reclaimed after its lease ran out): its current
     version, if any, stays. A cancel therefore ends a series, and a replacement starts the new one.
  3. If a next due time is earlier than the shard's earliest due time before, publish it on the wake channel.

  Returns the number of members settled (removed from in-flight), or -1 FENCED, -2 INVALID_ARGUMENT.
]]
--#include lanes.lua
if redis.call('GET', KEYS[4]) ~= ARGV[1] then
  return -1
end
if (#ARGV - 3) % 3 ~= 0 then
  return -2
end
for i = 4, #ARGV, 3 do
  if ARGV[i + 1] ~= '' and not tonumber(ARGV[i + 1]) then
    return -2
  end
end
lanes_at(KEYS[5])
local earliest = lanes_first()
local woken = nil
local settled = 0
for i = 4, #ARGV, 3 do
  local member = ARGV[i]
  if redis.call('ZREM', KEYS[1], member) == 1 then
    settled = settled + 1
    redis.call('HDEL', KEYS[3], member)
    if ARGV[i + 1] == '' then
      redis.call('HDEL', KEYS[2], member)
    else
      local nextDue = tonumber(ARGV[i + 1])
      redis.call('HSET', KEYS[2], member, ARGV[i + 2])
      lanes_add({ARGV[i + 1], member}, {lane_of(ARGV[i + 2])})
      if (earliest == nil or nextDue < earliest) and (woken == nil or nextDue < woken) then
        woken = nextDue
      end
    end
  end
end
if woken then
  redis.call(ARGV[3], ARGV[2], string.format('%d', woken))
end
return settled
