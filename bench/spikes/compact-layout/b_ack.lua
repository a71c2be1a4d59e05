--[[
  SPIKE layout B ("value in member"), ack. Default ids only. Touches no bucket: claim moved the values of the
  members in flight to ifmsg.

  KEYS[1] inflight, KEYS[2] ifmsg, KEYS[3] epoch
  ARGV[1] epoch, ARGV[2..] members
  One ZMSCORE, then one ZREM of inflight and one HDEL of ifmsg for the members still in flight.
  Skipped vs ack.lua: attempts hash, the pre-6.2 fallback without ZMSCORE, parts of 1,000 (batches are <= 400).
  Returns the number deleted, or -1 FENCED.
]]
if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  return -1
end
local members = {unpack(ARGV, 2)}
if #members == 0 then
  return 0
end
local scores = redis.call('ZMSCORE', KEYS[1], unpack(members))
local removed, seen = {}, {}
for j = 1, #members do
  local m = members[j]
  if scores[j] and not seen[m] then
    seen[m] = true
    removed[#removed + 1] = m
  end
end
if #removed > 0 then
  redis.call('ZREM', KEYS[1], unpack(removed))
  redis.call('HDEL', KEYS[2], unpack(removed))
end
return #removed
