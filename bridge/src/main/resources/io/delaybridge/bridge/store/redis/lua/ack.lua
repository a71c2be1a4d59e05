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

  Returns the number of members deleted, or -1 FENCED.
]]
if redis.call('GET', KEYS[4]) ~= ARGV[1] then
  return -1
end
local deleted = 0
for i = 2, #ARGV do
  if redis.call('ZREM', KEYS[1], ARGV[i]) == 1 then
    redis.call('HDEL', KEYS[2], ARGV[i])
    redis.call('HDEL', KEYS[3], ARGV[i])
    deleted = deleted + 1
  end
end
return deleted
