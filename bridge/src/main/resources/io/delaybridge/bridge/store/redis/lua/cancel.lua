--[[
  cancel: remove a message, whether it waits for its due time, is being delivered or waits in the far tier, and
  remember the cancel.

  KEYS[1] due        zset  member -> due ms
  KEYS[2] msg        hash  member -> stored value
  KEYS[3] inflight   zset  member -> lease deadline ms
  KEYS[4] attempts   hash  member -> earlier attempts
  KEYS[5] inc        string  the store's incarnation, as copied into this shard
  KEYS[6] cancelled  zset  member -> timestamp of the newest remembered cancel record of the id
  KEYS[7] faridx     zset  hour -> its start, epoch ms: the far hours that hold entries
  KEYS[8] fargone    zset  default id's member -> timestamp: its far records this old or older are dropped at thaw
  KEYS[9..] ids      an explicit id's farid:<n> hash (id -> far version); none for a default id
  ARGV[1] member     the message's member
  ARGV[2] incarnation  the incarnation the caller connected to
  ARGV[3] timestamp  the cancel record's timestamp, epoch ms; empty: remember nothing
  ARGV[4] forget     remembered cancels older than this (epoch ms) are dropped; empty: drop none

  Steps
  1. The shard's incarnation must be ARGV[2]: else INCARNATION_MISMATCH.
  2. Remove the member from due, in-flight, payloads and attempts. A message in flight loses its payload and lease:
     the send under way may still reach the target, but it is never retried or reclaimed, and its ack is a no-op.
  3. The far tier: an explicit id's far version is removed (its entry is dropped at thaw); for a default id, while
     the shard has far entries, the cancel's timestamp (Redis' clock if unknown) goes into fargone, so that the thaw
     drops its record if it waits far (a default id's entry is found by its hour, which the cancel does not know:
     such a cancel answers NOT_FOUND, and takes effect all the same).
  4. Remember the cancel under its record's timestamp (keeping the newest), whether or not it found the message: a
     schedule of the id from an older record, processed after this (another partition lagged behind, or the intake
     reads it again after a crash), is then dropped instead of firing. Forget cancels older than ARGV[4].

  Returns 4 CANCELLED (was pending, hot or far by an explicit id), 6 CANCELLED_IN_FLIGHT (was being delivered),
  5 NOT_FOUND, -3 INCARNATION_MISMATCH.
]]
--#include lanes.lua
if redis.call('GET', KEYS[5]) ~= ARGV[2] then
  return -3
end
local member = ARGV[1]
lanes_at(KEYS[1])
local pending = lane_remove(member, lane_of_member(member))
local inflight = redis.call('ZREM', KEYS[3], member)
redis.call('HDEL', KEYS[2], member)
redis.call('HDEL', KEYS[4], member)
if #KEYS > 8 then
  if redis.call('HDEL', KEYS[9], member) == 1 then
    pending = 1
  end
elseif redis.call('EXISTS', KEYS[7]) == 1 then
  local at = ARGV[3]
  if at == '' then
    local time = redis.call('TIME')
    at = string.format('%d', tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
  end
  redis.call('ZADD', KEYS[8], 'GT', at, member)
end
if ARGV[3] ~= '' then
  local previous = redis.call('ZSCORE', KEYS[6], member)
  if not previous or tonumber(previous) < tonumber(ARGV[3]) then
    redis.call('ZADD', KEYS[6], ARGV[3], member)
  end
  if ARGV[4] ~= '' then
    redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', '(' .. ARGV[4])
  end
end
if pending == 1 then
  return 4
elseif inflight == 1 then
  return 6
end
return 5
