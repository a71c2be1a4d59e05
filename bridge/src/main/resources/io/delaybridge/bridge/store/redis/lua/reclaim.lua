--[[
  reclaim: return in-flight messages whose lease ran out (their claimer died or stalled) to the due set, due now.
  Such a message may already have reached its target: the next delivery carries a higher delay-attempt.
  With ARGV[5] = 1, every in-flight message, whatever its lease: the owner asks this when a claim of its own ran but
  its answer was lost (the connection broke), so nobody is sending what that claim took, and the owner has nothing
  else of the shard on its way (acquire already handed back what earlier owners left in flight).

  KEYS[1] due        zset  member -> due ms
  KEYS[2] inflight   zset  member -> lease deadline ms
  KEYS[3] attempts   hash  member -> earlier attempts
  KEYS[4] epoch      string  the shard's fencing epoch
  ARGV[1] epoch      the caller's epoch
  ARGV[2] max        at most this many messages (>= 1)
  ARGV[3] channel    the shard's wake channel (a channel, not a key)
  ARGV[4] publish    PUBLISH, or SPUBLISH on a Redis 7 cluster (sharded pub/sub)
  ARGV[5] all        1: any lease deadline; 0: only deadlines before now

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED.
  2. now = Redis TIME in ms. Take up to max in-flight members whose deadline is before now (any deadline if all),
     oldest first.
  3. For each: remove it from in-flight, add it to due at now, count the attempt.
  4. If any moved and now is earlier than the shard's earliest due time before, publish now on the wake channel.

  Returns the number of members moved, -1 FENCED, -2 INVALID_ARGUMENT.
]]
--#include lanes.lua
if redis.call('GET', KEYS[4]) ~= ARGV[1] then
  return -1
end
local max = tonumber(ARGV[2])
if not max or max < 1 or (ARGV[5] ~= '0' and ARGV[5] ~= '1') then
  return -2
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local upto = '(' .. now
if ARGV[5] == '1' then
  upto = '+inf'
end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', upto, 'LIMIT', 0, max)
if #expired == 0 then
  return 0
end
lanes_at(KEYS[1])
local first = lanes_first()
local nowText = string.format('%d', now)
local scored, lanes = {}, {}
for i = 1, #expired do
  redis.call('ZREM', KEYS[2], expired[i])
  scored[2 * i - 1], scored[2 * i] = nowText, expired[i]
  lanes[i] = lane_of_member(expired[i])
  redis.call('HINCRBY', KEYS[3], expired[i], 1)
end
lanes_add(scored, lanes)
if first == nil or first > now then
  redis.call(ARGV[4], ARGV[3], now)
end
return #expired
