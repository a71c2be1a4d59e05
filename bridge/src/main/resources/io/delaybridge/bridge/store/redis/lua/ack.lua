--[[
  ack: delete messages whose delivery Kafka acknowledged.

  KEYS[1] inflight   zset  member -> lease deadline ms
  KEYS[2] msg        hash  member -> stored value
  KEYS[3] attempts   hash  member -> earlier attempts
  KEYS[4] epoch      string  the shard's fencing epoch
  KEYS[5] due        zset  member -> due ms
  ARGV[1] epoch      the caller's epoch
  ARGV[2..] members  the delivered members

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED.
  2. For each member still in flight: remove it from in-flight, payloads and attempts. A member no longer in flight
     was replaced or cancelled while it was being delivered (or reclaimed after its lease ran out): its current
     version, if any, stays.
     One variadic ZREM removes the members from in-flight and counts them. If it removed as many as there are
     members (the usual case: every member was in flight), all payloads go. Otherwise some member was not in flight,
     and ZREM does not say which: every stored message is in exactly one of due and in-flight (schedule and retry
     put it in due, claim moves it to in-flight, reclaim back, cancel and ack remove it from both), so a member
     that is not in due now was either in flight (and just removed) or has no payload at all, and a member in due
     was not in flight. The payloads of members not in due go.
     Why not ask first (ZMSCORE in-flight, then ZREM): Redis formats every score of the reply as text (printf of a
     double) and Lua reads it back, for every member of every ack; the check costs only when a member was not in
     flight, which is rare. Attempt counts are deleted only if the shard's attempts hash exists (it holds only
     messages whose delivery failed before; usually none). In parts of 1,000 members (below Lua's unpack limit).

  Returns the number of members deleted (removed from in-flight), or -1 FENCED.
]]
--#include lanes.lua
if redis.call('GET', KEYS[4]) ~= ARGV[1] then
  return -1
end
local anyAttempts = redis.call('EXISTS', KEYS[3]) == 1
local deleted = 0
local part = 1000
for from = 2, #ARGV, part do
  local to = math.min(from + part - 1, #ARGV)
  local members = {unpack(ARGV, from, to)}
  local n = to - from + 1
  local removed = redis.call('ZREM', KEYS[1], unpack(members))
  deleted = deleted + removed
  local gone = members
  if removed < n then
    -- some member was not in flight (or is given twice): keep the payloads of members pending in due
    gone = {}
    local g = 0 -- filled through a counter: #t is a search in Lua 5.1
    -- each in its lane (lanes.lua), found by its value
    lanes_at(KEYS[5])
    local values = redis.call('HMGET', KEYS[2], unpack(members))
    for j = 1, n do
      local pending = values[j] and lane_score(members[j], lane_of(values[j]))
      if not pending then
        g = g + 1
        gone[g] = members[j]
      end
    end
  end
  if #gone > 0 then
    redis.call('HDEL', KEYS[2], unpack(gone))
    if anyAttempts then
      redis.call('HDEL', KEYS[3], unpack(gone))
    end
  end
end
return deleted
