--[[
  writers: the instances that may have written exactly-once transactions carrying a shard's records. A shard's new
  owner records itself here before it sends, reads whom it must fence, and forgets them once their producers are
  fenced. The set lives in the shard's slot; it is gone when its last writer is forgotten.

  KEYS[1] writers    set  instance ids that wrote, or may have written, transactions with the shard's records
  ARGV[1] instance   the instance to record, or empty to record none
  ARGV[2..] fenced   instance ids to forget (their producers were fenced)

  Steps
  0. PERSIST the set (it never expires anyway). At maxmemory Redis refuses a script's first write if that write may
     grow memory, as SADD may, but never stops a script that has already written: a new owner must still be able to
     open a shard of a full Redis and drain it (as acquire.lua does).
  1. SREM the fenced ids, in parts of 1,000 (below Lua's unpack limit): removals first, so an instance both forgotten
     and recorded in one call stays recorded, and a full Redis still forgets.
  2. SADD ARGV[1], unless it is empty.
  3. SMEMBERS, without ARGV[1].
  Running a call again changes nothing: SREM and SADD are idempotent.

  Returns the other writers recorded (a list, possibly empty, in no particular order); no codes.
]]
redis.call('PERSIST', KEYS[1])
local part = 1000
for from = 2, #ARGV, part do
  local to = math.min(from + part - 1, #ARGV)
  redis.call('SREM', KEYS[1], unpack(ARGV, from, to))
end
if ARGV[1] ~= '' then
  redis.call('SADD', KEYS[1], ARGV[1])
end
local others = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if id ~= ARGV[1] then
    others[#others + 1] = id
  end
end
return others
