--[[
  handback: put claimed messages back into the due set at their own due time, no attempt counted. The pump does
  this with messages a rate cap held back (their target has no tokens for them within a fraction of the lease), so
  they wait in Redis instead of in memory, and the oldest stay first in line.

  KEYS[1] due        zset  member -> due ms
  KEYS[2] inflight   zset  member -> lease deadline ms
  KEYS[3] epoch      string  the shard's fencing epoch
  ARGV[1] epoch      the caller's epoch
  ARGV[2..] pairs    2 arguments per claimed message:
    member   the message's member
    due      the due time it was claimed with, epoch ms, decimal

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED.
  2. For each member still in flight (one replaced or cancelled meanwhile is not): remove it from in-flight and add
     it to due at its due time. The attempts hash is not touched: the message was never sent. No wake-up is
     published: the owner handing it back is the one that would claim it, and it knows when (when the target has
     tokens again); a wake-up would make it claim the same messages at once.

  Returns the number of members moved, -1 FENCED, -2 INVALID_ARGUMENT (an odd number of pair values, or a due time
  that is not a number).
]]
if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  return -1
end
if #ARGV % 2 ~= 1 then
  return -2
end
for i = 3, #ARGV, 2 do
  if not tonumber(ARGV[i]) then
    return -2
  end
end
local moved = 0
for i = 2, #ARGV, 2 do
  if redis.call('ZREM', KEYS[2], ARGV[i]) == 1 then
    redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
    moved = moved + 1
  end
end
return moved
