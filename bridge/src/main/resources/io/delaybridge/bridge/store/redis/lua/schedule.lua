--[[
  schedule: store a message and index its due time, in one step. Idempotent on (id, origin).

  KEYS[1] due        zset  member -> due ms
  KEYS[2] msg        hash  member -> stored value (origin header + envelope)
  KEYS[3] inflight   zset  member -> lease deadline ms
  KEYS[4] attempts   hash  member -> earlier attempts
  KEYS[5] inc        string  the store's incarnation, as copied into this shard
  KEYS[6] cancelled  zset  member -> timestamp of the newest remembered cancel record of the id
  ARGV[1] member     the message's member (ShardRouter.member)
  ARGV[2] due        due time, epoch ms, decimal
  ARGV[3] header     the origin header the stored value starts with (StoredValue.header)
  ARGV[4] value      header followed by the envelope
  ARGV[5] channel    the shard's wake channel (a channel, not a key)
  ARGV[6] incarnation  the incarnation the caller connected to
  ARGV[7] timestamp  the intake record's timestamp, epoch ms; empty if unknown

  Steps
  1. The shard's incarnation must be ARGV[6], else the data this caller knew is gone: INCARNATION_MISMATCH.
  2. A stored value for the member that starts with the same header is the same intake record read again
     (pending or in flight): DUPLICATE, nothing changes.
  3. A remembered cancel of the id from a record at least as new as this one (it came in on another partition and
     was read first, or this record is read again after a crash): ALREADY_CANCELLED, nothing is stored.
  4. Otherwise store the value, index the due time, and forget any in-flight lease and attempt count of an earlier
     version: a version being delivered right now may still be delivered, but its ack no longer deletes the new one
     (ack deletes only members still in flight), and its retry or reclaim finds nothing.
     HSET is the first write on purpose: at maxmemory Redis refuses it (OOM) before anything changed. (The pump's
     scripts start with a removal instead, which Redis allows at maxmemory, so a full Redis can still be drained.)
  5. Forget an older remembered cancel of the id: this record is newer, so it schedules the id again.
  6. If the due time is earlier than the shard's earliest before, publish it on the wake channel.

  Returns {code, woke}: code 1 STORED, 2 REPLACED, 3 DUPLICATE, 9 ALREADY_CANCELLED, -2 INVALID_ARGUMENT,
  -3 INCARNATION_MISMATCH;
  woke 1 if a wake-up was published.
]]
if redis.call('GET', KEYS[5]) ~= ARGV[6] then
  return {-3, 0}
end
local due = tonumber(ARGV[2])
if not due then
  return {-2, 0}
end
local member = ARGV[1]

local code = 1
local old = redis.call('HGET', KEYS[2], member)
if old then
  local header = ARGV[3]
  if string.sub(old, 1, #header) == header then
    return {3, 0}
  end
  code = 2
end

local timestamp = tonumber(ARGV[7])
local cancelledAt = redis.call('ZSCORE', KEYS[6], member)
if cancelledAt and timestamp and tonumber(cancelledAt) >= timestamp then
  return {9, 0}
end

local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
redis.call('HSET', KEYS[2], member, ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[2], member)
if code == 2 then
  -- an earlier version may be in flight or have failed attempts; a new member has neither (ack, cancel and claim
  -- remove them together with the payload)
  redis.call('ZREM', KEYS[3], member)
  redis.call('HDEL', KEYS[4], member)
end
if cancelledAt then
  redis.call('ZREM', KEYS[6], member)
end

local woke = 0
if first[2] == nil or tonumber(first[2]) > due then
  redis.call('PUBLISH', ARGV[5], ARGV[2])
  woke = 1
end
return {code, woke}
