--[[
  claim: move a bounded batch of due messages into flight under a lease, and return them.

  KEYS[1] due        zset  member -> due ms
  KEYS[2] msg        hash  member -> stored value
  KEYS[3] inflight   zset  member -> lease deadline ms
  KEYS[4] attempts   hash  member -> earlier attempts
  KEYS[5] epoch      string  the shard's fencing epoch
  ARGV[1] epoch      the caller's epoch (from acquire)
  ARGV[2] max        at most this many messages (>= 1)
  ARGV[3] lease      lease length, ms
  ARGV[4] lookahead  also take messages due up to this many ms after now (>= 0): the caller holds them and sends
                     each at its due time, so the claim's round trip is not part of their lateness

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED.
  2. now = Redis TIME in ms: the one clock all instances agree on.
  3. Take up to max members due at or before now + lookahead, earliest first (equal due times in member order:
     intake offset).
  4. Remove them from due; those whose payload exists go into in-flight with deadline now + lease and are returned;
     a member without payload (cannot happen through these scripts) is dropped and counted. Attempt counts are read
     only if the attempts hash exists (it holds only messages whose delivery failed before; usually none).
     A member a rate cap parked (handback.lua: attempts "<attempts>:<due>:<at>") is returned with the due time kept
     there while its score is still `at`, and its attempts field goes back to the count (deleted at 0).
     Each step is one variadic command for the whole batch (in parts of 1,000 members, below Lua's unpack limit):
     per-message commands cost Redis most of its time per message.
  5. Report the shard's next due time after the batch (and Redis' time: messages due after it are not due yet).

  Returns {now, nextDue or -1, dropped, member1, due1, attempts1, value1, member2, ...}
  (attempts = earlier delivery attempts, 0 on the first), or {-1} FENCED, {-2} INVALID_ARGUMENT.
]]
if redis.call('GET', KEYS[5]) ~= ARGV[1] then
  return {-1}
end
local max = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local lookahead = tonumber(ARGV[4])
if not max or max < 1 or not lease or lease < 0 or not lookahead or lookahead < 0 then
  return {-2}
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
-- as text once: a Lua number passed to redis.call is formatted with sprintf for every member it goes with
local deadline = string.format('%d', now + lease)

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now + lookahead, 'WITHSCORES', 'LIMIT', 0, max)
local out = {now, -1, 0}
local n = 3 -- filled through counters: #t is a search in Lua 5.1
local dropped = 0
-- attempts exist only for messages whose delivery failed before: usually none, and then there is nothing to read
local anyAttempts = #due > 0 and redis.call('EXISTS', KEYS[4]) == 1
local part = 1000
for from = 1, #due / 2, part do
  local to = math.min(from + part - 1, #due / 2)
  local members, m = {}, 0
  for j = from, to do
    m = m + 1
    members[m] = due[2 * j - 1]
  end
  redis.call('ZREM', KEYS[1], unpack(members))
  local values = redis.call('HMGET', KEYS[2], unpack(members))
  local attempts = anyAttempts and redis.call('HMGET', KEYS[4], unpack(members)) or {}
  local leased, l = {}, 0
  for j = 1, m do
    local member = members[j]
    if values[j] then
      leased[l + 1], leased[l + 2], l = deadline, member, l + 2
      out[n + 1] = member
      local score = tonumber(due[2 * (from + j - 1)])
      local earlier = attempts[j] or 0
      if anyAttempts and attempts[j] then
        local count, was, at = string.match(attempts[j], '^(%d+):(%d+):(%d+)$')
        if count then
          earlier = count
          if tonumber(at) == score then
            score = tonumber(was)
          end
          if count == '0' then
            redis.call('HDEL', KEYS[4], member)
          else
            redis.call('HSET', KEYS[4], member, count)
          end
        end
      end
      out[n + 2] = score
      out[n + 3] = tonumber(earlier)
      out[n + 4] = values[j]
      n = n + 4
    else
      if anyAttempts then
        redis.call('HDEL', KEYS[4], member)
      end
      dropped = dropped + 1
    end
  end
  if l > 0 then
    redis.call('ZADD', KEYS[3], unpack(leased))
  end
end

local nextDue = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if nextDue[2] then
  out[2] = tonumber(nextDue[2])
end
out[3] = dropped
return out
