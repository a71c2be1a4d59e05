--[[
  far_append: index records due far ahead, whose payloads stay in the intake topic's log: one 12-byte entry each,
  appended to the string of its due hour, and the hour added to the shard's index. A batch of one shard.

  KEYS[1] faridx     zset  hour -> its start, epoch ms: the hours that hold entries
  KEYS[2] inc        string  the store's incarnation, as copied into this shard
  KEYS[3..] hours    the far:<hour> strings the batch writes to, each named once
  ARGV[1] incarnation  the incarnation the caller connected to
  ARGV[2..] entries  3 arguments per entry:
    key      the index in KEYS of the entry's hour string (3 for the first)
    hour     the hour, epoch ms / 3,600,000, decimal
    entry    12 bytes, big-endian: intake partition (2), offset (6), due ms within the hour (4)

  Steps
  1. The shard's incarnation must be ARGV[1]: else INCARNATION_MISMATCH (the shard lost everything), nothing written.
  2. Per entry: ZADD the hour to the index (score: the hour's start), then APPEND the entry to the hour's string. The
     first write is a ZADD, so a full Redis refuses the call before anything changed.
  An entry appended twice (the intake read its record again after a failure) is thawed twice, and the hot tier's
  schedule stores it once (DUPLICATE on its id and origin).

  Returns the number of entries appended, or -3 INCARNATION_MISMATCH.
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return -3
end
local appended = 0
for i = 2, #ARGV, 3 do
  local hour = ARGV[i + 1]
  redis.call('ZADD', KEYS[1], tonumber(hour) * 3600000, hour)
  redis.call('APPEND', KEYS[tonumber(ARGV[i])], ARGV[i + 2])
  appended = appended + 1
end
return appended
