--[[
  ack: delete messages whose delivery Kafka acknowledged.

  KEYS[1] inflight   zset  member -> lease deadline ms
  KEYS[2] msg        hash  member -> stored value
  KEYS[3] attempts   hash  member -> earlier attempts
  KEYS[4] epoch      string  the shard's fencing epoch
  ARGV[1] epoch      the caller's epoch
  ARGV[2..] members  the delivered members

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED.
  2. For each member still in flight: remove it from in-flight, payloads and attempts. A member no longer in flight
     was replaced or cancelled while it was being delivered (or reclaimed after its lease ran out): its current
     version, if any, stays.
     ZMSCORE tells at once which members are in flight, then one variadic ZREM and HDEL each delete them, in parts
     of 1,000 members (below Lua's unpack limit). Redis before 6.2 has no ZMSCORE: there, one ZREM per member tells.

  Returns the number of members deleted, or -1 FENCED.
]]
if redis.call('GET', KEYS[4]) ~= ARGV[1] then
  return -1
end
local deleted = 0
local part = 1000
for from = 2, #ARGV, part do
  local members = {unpack(ARGV, from, math.min(from + part - 1, #ARGV))}
  local removed, r = {}, 0 -- filled through a counter: #t is a search in Lua 5.1
  local scores = redis.pcall('ZMSCORE', KEYS[1], unpack(members))
  if type(scores) == 'table' and scores.err then
    for j = 1, #members do
      if redis.call('ZREM', KEYS[1], members[j]) == 1 then
        r = r + 1
        removed[r] = members[j]
      end
    end
  else
    local seen = {}
    for j = 1, #members do
      if scores[j] and not seen[members[j]] then
        seen[members[j]] = true
        r = r + 1
        removed[r] = members[j]
      end
    end
    if r > 0 then
      redis.call('ZREM', KEYS[1], unpack(removed))
    end
  end
  if r > 0 then
    redis.call('HDEL', KEYS[2], unpack(removed))
    redis.call('HDEL', KEYS[3], unpack(removed))
  end
  deleted = deleted + r
end
return deleted
