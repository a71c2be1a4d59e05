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
  ARGV[1] incarnation  the incarnation the caller connected to
  ARGV[2..] members  the members of the records to check (ShardRouter.member), all of this shard

  Steps
  0. The shard's incarnation must be ARGV[1], else the data this caller knew is gone (a record would pass the check
     only because the store forgot it): INCARNATION_MISMATCH.
  1. now = Redis TIME in ms: the caller holds a record due after it until Redis' clock has certainly reached it.
  2. The shard's earliest due time (-1 if nothing waits) and how many messages are in flight: a record passes only if
     no stored message of its shard could be overtaken by it (the caller compares the due times).
  3. Per member, whether the store knows anything of the id: a stored value, an in-flight entry, or a remembered
     cancel. A known id parks (only the store decides a replacement or a cancel).
  Reads only: the script changes nothing, so running it twice, or after a fail-over, is harmless.

  Returns {now, earliestDue or -1, inflightCount, known1, known2, ...} with known 1 (the store knows the id) or 0;
  or {-3} INCARNATION_MISMATCH.
]]
if redis.call('GET', KEYS[5]) ~= ARGV[1] then
  return {-3}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local earliest = -1
if first[2] then
  earliest = tonumber(first[2])
end
local out = {now, earliest, redis.call('ZCARD', KEYS[3])}
local anyCancelled = redis.call('EXISTS', KEYS[4]) == 1
local part = 1000 -- below Lua's unpack limit
for from = 2, #ARGV, part do
  local to = math.min(from + part - 1, #ARGV)
  local values = redis.call('HMGET', KEYS[2], unpack(ARGV, from, to))
  for j = from, to do
    local known = 0
    if values[j - from + 1] then
      known = 1
    elseif redis.call('ZSCORE', KEYS[3], ARGV[j]) then
      known = 1
    elseif anyCancelled and redis.call('ZSCORE', KEYS[4], ARGV[j]) then
      known = 1
    end
    out[2 + j] = known
  end
end
return out
