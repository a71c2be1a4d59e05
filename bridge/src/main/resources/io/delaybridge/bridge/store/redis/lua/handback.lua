--[[
  handback: put claimed messages back into the due set, no attempt counted, each parked until a given time. The
  pump does this with messages a rate cap held back: parked until their target has a token for them (the target's
  next token time), they wait in Redis instead of in memory, and no claim takes them before then, so they hold up
  neither the other targets of the shard nor Redis. The due time each was claimed with is kept apart, so the claim
  that takes it again returns that due time (delay-due-at and lateness stay right).

  KEYS[1] due        zset  member -> due ms
  KEYS[2] inflight   zset  member -> lease deadline ms
  KEYS[3] attempts   hash  member -> earlier attempts
  KEYS[4] epoch      string  the shard's fencing epoch
  ARGV[1] epoch      the caller's epoch
  ARGV[2..] triples  3 arguments per claimed message:
    member   the message's member
    due      the due time it was claimed with, epoch ms, decimal
    at       when it is claimable again (its score in due), epoch ms, decimal; at = due parks it not at all

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED.
  2. For each member still in flight (one replaced or cancelled meanwhile is not): remove it from in-flight and add
     it to due at `at`. If `at` is not its due time, its attempts field becomes "<attempts>:<due>:<at>" (claim.lua
     reads it back, and takes the due time only while the score is still `at`: a message rescheduled meanwhile has
     the due time it was given). The attempt count is not raised: the message was never sent. No wake-up is
     published: the owner handing it back is the one that would claim it, and it knows when.

  Returns the number of members moved, -1 FENCED, -2 INVALID_ARGUMENT (not whole triples, or a due time or `at`
  that is not a number).
]]
--#include lanes.lua
if redis.call('GET', KEYS[4]) ~= ARGV[1] then
  return -1
end
if #ARGV % 3 ~= 1 then
  return -2
end
for i = 2, #ARGV, 3 do
  if not tonumber(ARGV[i + 1]) or not tonumber(ARGV[i + 2]) then
    return -2
  end
end
lanes_at(KEYS[1])
local moved = 0
for i = 2, #ARGV, 3 do
  local member, due, at = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if redis.call('ZREM', KEYS[2], member) == 1 then
    lanes_add({at, member}, {lane_of_member(member)})
    if tonumber(at) ~= tonumber(due) then
      local earlier = redis.call('HGET', KEYS[3], member)
      earlier = earlier and string.match(earlier, '^%d+') or '0'
      redis.call('HSET', KEYS[3], member, earlier .. ':' .. due .. ':' .. at)
    end
    moved = moved + 1
  end
end
return moved
