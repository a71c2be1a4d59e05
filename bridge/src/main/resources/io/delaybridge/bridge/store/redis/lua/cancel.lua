--[[
  cancel: remove a message, whether it waits for its due time or is being delivered.

  KEYS[1] due        zset  member -> due ms
  KEYS[2] msg        hash  member -> stored value
  KEYS[3] inflight   zset  member -> lease deadline ms
  KEYS[4] attempts   hash  member -> earlier attempts
  KEYS[5] inc        string  the store's incarnation, as copied into this shard
  ARGV[1] member     the message's member
  ARGV[2] incarnation  the incarnation the caller connected to

  Steps
  1. The shard's incarnation must be ARGV[2]: else INCARNATION_MISMATCH.
  2. Remove the member from due, in-flight, payloads and attempts. A message in flight loses its payload and lease:
     the send under way may still reach the target, but it is never retried or reclaimed, and its ack is a no-op.

  Returns 4 CANCELLED (was pending), 6 CANCELLED_IN_FLIGHT (was being delivered), 5 NOT_FOUND,
  -3 INCARNATION_MISMATCH.
]]
if redis.call('GET', KEYS[5]) ~= ARGV[2] then
  return -3
end
local member = ARGV[1]
local pending = redis.call('ZREM', KEYS[1], member)
local inflight = redis.call('ZREM', KEYS[3], member)
redis.call('HDEL', KEYS[2], member)
redis.call('HDEL', KEYS[4], member)
if pending == 1 then
  return 4
elseif inflight == 1 then
  return 6
end
return 5
