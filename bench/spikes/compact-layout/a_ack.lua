--[[
  SPIKE layout A ("buckets"), ack. Default ids only.

  KEYS[1] inflight, KEYS[2] epoch
  ARGV[1] epoch, ARGV[2] bucket key prefix, ARGV[3..] members
  Deletes the members still in flight: one ZMSCORE, one ZREM of inflight, then one HDEL per bucket of values.
  Skipped vs ack.lua: attempts hash, the pre-6.2 fallback without ZMSCORE.
  Returns the number deleted, or -1 FENCED.
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return -1
end
local mkp = ARGV[2] .. 'm:'
local members = {unpack(ARGV, 3)}
if #members == 0 then
  return 0
end
local scores = redis.call('ZMSCORE', KEYS[1], unpack(members))
local removed, seen = {}, {}
local order, groups = {}, {}
for j = 1, #members do
  local m = members[j]
  if scores[j] and not seen[m] then
    seen[m] = true
    removed[#removed + 1] = m
    local bid = string.sub(m, 1, 7) .. (string.byte(m, 8) >= 128 and '\128' or '\0')
    local g = groups[bid]
    if not g then
      g = {}
      groups[bid] = g
      order[#order + 1] = bid
    end
    g[#g + 1] = m
  end
end
if #removed > 0 then
  redis.call('ZREM', KEYS[1], unpack(removed))
  for _, bid in ipairs(order) do
    redis.call('HDEL', mkp .. bid, unpack(groups[bid]))
  end
end
return #removed
