--[[
  express: the express path's check (read-only), for intake records that are due now or within the express window
  and are to be delivered straight from the intake, never written to the store. The check is such a record's claim:
  it runs in the same pipeline as, and after, the writes of the poll that read it, so every write read before it on
  its shard (a cancel, a reschedule, an earlier parked record of its partition) is visible here.

  KEYS[1] due        zset  member -> due ms
  KEYS[2] msg        hash  member -> stored value
  KEYS[3] inflight   zset  member -> lease deadline ms
  KEYS[4] cancelled  zset  member -> timestamp of the newest remembered cancel record of the id
  KEYS[5] inc        string  the store's incarnation, as copied into this shard
  KEYS[6] faridx     zset  hour -> its start, epoch ms: the far hours that hold entries
  ARGV[1] incarnation  the incarnation the caller connected to
  ARGV[2..] members  2 arguments per record to check, all of this shard:
    member   its member (ShardRouter.member)
    hour     its due hour (due ms / 3,600,000, decimal)

  Steps
  0. The shard's incarnation must be ARGV[1], else the data this caller knew is gone (a record would pass the check
     only because the store forgot it): INCARNATION_MISMATCH.
  1. now = Redis TIME in ms: the caller holds a record due after it until Redis' clock has certainly reached it.
  2. The shard's earliest due time (-1 if nothing waits) and how many messages are in flight: a record passes only if
     no stored message of its shard could be overtaken by it (the caller compares the due times).
  3. Per member, whether the store knows anything of the id: a stored value, an in-flight entry, or a remembered
     cancel. A known id parks (only the store decides a replacement or a cancel). So does a record whose due hour
     the far index holds: a reader before this one may have written it far and stopped before its commit; parked,
     it is stored hot by schedule.lua, which drops that far entry (its step 3.g), where sent from here it would be
     thawed and delivered again.
  Reads only: the script changes nothing, so running it twice, or after a fail-over, is harmless.

  Returns {now, earliestDue or -1, inflightCount, known1, known2, ...} with known 1 (the store knows the id, or its
  due hour is far) or 0; or {-3} INCARNATION_MISMATCH, {-2} INVALID_ARGUMENT (not whole pairs).
]]
--#include lanes.lua
if redis.call('GET', KEYS[5]) ~= ARGV[1] then
  return {-3}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
lanes_at(KEYS[1])
local earliest = lanes_first() or -1
local out = {now, earliest, redis.call('ZCARD', KEYS[3])}
if (#ARGV - 1) % 2 ~= 0 then
  return {-2}
end
local anyCancelled = redis.call('EXISTS', KEYS[4]) == 1
local anyFar = redis.call('EXISTS', KEYS[6]) == 1
local count = (#ARGV - 1) / 2
local part = 1000 -- below Lua's unpack limit
for from = 1, count, part do
  local to = math.min(from + part - 1, count)
  local members, n = {}, 0
  for k = from, to do
    n = n + 1
    members[n] = ARGV[2 * k]
  end
  local values = redis.call('HMGET', KEYS[2], unpack(members))
  for k = from, to do
    local member = ARGV[2 * k]
    local known = 0
    if values[k - from + 1] then
      known = 1
    elseif redis.call('ZSCORE', KEYS[3], member) then
      known = 1
    elseif anyCancelled and redis.call('ZSCORE', KEYS[4], member) then
      known = 1
    elseif anyFar and redis.call('ZSCORE', KEYS[6], ARGV[2 * k + 1]) then
      known = 1
    end
    out[3 + k] = known
  end
end
return out
