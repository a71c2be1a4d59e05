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
  ARGV[5..] weights  2 arguments per target whose lane weighs other than 1:
    target   a target topic
    weight   its weight (>= 1): its share of a claim against the other due lanes

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED.
  2. now = Redis TIME in ms: the one clock all instances agree on.
  3. Take up to max members due at or before now + lookahead from the shard's lanes (lanes.lua) in turns: each due
     lane a share of what is left by its weight (at least one), until max are taken or no due lane has more. Within
     a lane earliest first (equal due times in member order: intake offset); the batch in due order. So a target's
     backlog takes no more than its share while another target has messages due.
  4. Remove them from their lanes; those whose payload exists go into in-flight with deadline now + lease and are returned;
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
--#include lanes.lua
if redis.call('GET', KEYS[5]) ~= ARGV[1] then
  return {-1}
end
local max = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local lookahead = tonumber(ARGV[4])
if not max or max < 1 or not lease or lease < 0 or not lookahead or lookahead < 0 or #ARGV % 2 ~= 0 then
  return {-2}
end
local weight = {}
for i = 5, #ARGV, 2 do
  local w = tonumber(ARGV[i + 1])
  if not w or w < 1 then
    return {-2}
  end
  weight[ARGV[i]] = w
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
-- as text once: a Lua number passed to redis.call is formatted with sprintf for every member it goes with
local deadline = string.format('%d', now + lease)

lanes_at(KEYS[1])
local upto = now + lookahead
-- the due lanes: the old one if due, then the index's, earliest first
local lanes, nl = {}, 0
local oldFirst = redis.call('ZRANGE', LANE_DUE, 0, 0, 'WITHSCORES')
if oldFirst[2] and tonumber(oldFirst[2]) <= upto then
  nl = 1
  lanes[1] = ''
end
for _, lane in ipairs(redis.call('ZRANGEBYSCORE', LANE_INDEX, '-inf', upto, 'LIMIT', 0, max)) do
  nl = nl + 1
  lanes[nl] = lane
end
local due
if nl <= 1 then
  -- one lane due (the usual case): its first max, as they are
  due = {}
  if nl == 1 then
    local key = lane_key(lanes[1])
    due = redis.call('ZRANGEBYSCORE', key, '-inf', upto, 'WITHSCORES', 'LIMIT', 0, max)
    for from = 1, #due / 2, 1000 do
      local members, m = {}, 0
      for j = from, math.min(from + 999, #due / 2) do
        m = m + 1
        members[m] = due[2 * j - 1]
      end
      redis.call('ZREM', key, unpack(members))
    end
    lane_fix(lanes[1])
  end
else
  -- in turns: every open lane a share of what is left by its weight (at least one), until max or no lane has more
  local picked, np = {}, 0
  local taken = {}
  local open, left = lanes, max
  while left > 0 and #open > 0 do
    local budget, total = left, 0
    for i = 1, #open do
      total = total + (weight[open[i]] or 1)
    end
    local still, ns = {}, 0
    for i = 1, #open do
      if left == 0 then
        break
      end
      local lane = open[i]
      local want = math.min(math.max(1, math.floor(budget * (weight[lane] or 1) / total)), left)
      local from = taken[lane] or 0
      local got = redis.call('ZRANGEBYSCORE', lane_key(lane), '-inf', upto, 'WITHSCORES', 'LIMIT', from, want)
      local g = #got / 2
      for j = 1, g do
        np = np + 1
        picked[np] = {got[2 * j - 1], tonumber(got[2 * j]), lane, from + j}
      end
      taken[lane] = from + g
      left = left - g
      if g == want then
        ns = ns + 1
        still[ns] = lane
      end
    end
    open = still
  end
  -- due order; a lane's own order kept (table.sort is not stable, and Lua compares strings by locale)
  table.sort(picked, function(a, b)
    if a[2] ~= b[2] then
      return a[2] < b[2]
    end
    if a[3] ~= b[3] then
      return a[3] < b[3]
    end
    return a[4] < b[4]
  end)
  local byLane = {}
  for j = 1, np do
    local p = picked[j]
    local t = byLane[p[3]]
    if not t then
      t = {n = 0}
      byLane[p[3]] = t
    end
    t.n = t.n + 1
    t[t.n] = p[1]
  end
  for lane, t in pairs(byLane) do
    for from = 1, t.n, 1000 do
      redis.call('ZREM', lane_key(lane), unpack(t, from, math.min(from + 999, t.n)))
    end
  end
  for i = 1, nl do
    lane_fix(lanes[i])
  end
  due = {}
  for j = 1, np do
    due[2 * j - 1], due[2 * j] = picked[j][1], picked[j][2]
  end
end
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

local nextDue = lanes_first()
if nextDue then
  out[2] = nextDue
end
out[3] = dropped
return out
