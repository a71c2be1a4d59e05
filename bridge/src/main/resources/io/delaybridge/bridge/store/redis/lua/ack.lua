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
     version, if any, stays. (ZREM one by one tells which were in flight; the deletes are one variadic HDEL each, in
     parts of 1,000 members, below Lua's unpack limit.)

  Returns the number of members deleted, or -1 FENCED.
]]
if redis.call('GET', KEYS[4]) ~= ARGV[1] then
  return -1
end
local removed = {}
for i = 2, #ARGV do
  if redis.call('ZREM', KEYS[1], ARGV[i]) == 1 then
    removed[#removed + 1] = ARGV[i]
  end
end
local part = 1000
for from = 1, #removed, part do
  local members = {unpack(removed, from, math.min(from + part - 1, #removed))}
  redis.call('HDEL', KEYS[2], unpack(members))
  redis.call('HDEL', KEYS[3], unpack(members))
end
return #removed
