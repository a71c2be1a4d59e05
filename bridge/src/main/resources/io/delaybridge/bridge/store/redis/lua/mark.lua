--[[
  mark: record the intake's positions behind a write batch, and tell whether the store lost writes.

  KEYS[1] pos        hash  intake partition -> position: every record of that partition below it is stored
  KEYS[2] inc        string  the store's incarnation, as copied into this shard
  ARGV[1] incarnation  the incarnation the caller connected to
  ARGV[2..] partitions  3 arguments per intake partition:
    partition  the intake partition (the hash field)
    expected   the position the caller believes the store holds already (the end of the partition's previous batch
               in this run, or its committed offset); empty: no expectation
    next       the batch's last offset + 1

  Why: the caller writes this right after the batch's writes, in the same pipeline and on the same node, so Redis'
  replication stream carries it after them. A replica that has the mark has every write before it; a replica promoted
  by a fail-over before it received the master's last writes holds an older mark, and the next batch finds it.

  Steps
  1. The shard's incarnation must be ARGV[1]: else INCARNATION_MISMATCH (the shard lost everything).
  2. Per partition: a stored position below `expected` means writes the store acknowledged are gone: GAP with the
     stored position, and the position is not advanced (the caller reads the partition again from it). A missing
     position is accepted: a new store, or one written by a bridge that did not mark positions.
  3. Otherwise store max(stored, next): a batch read again after a rewind never moves the position back.

  Returns, per partition in order, two numbers: 11 MARKED and the position, or 12 GAP and the stored position;
  or {-3} INCARNATION_MISMATCH, {-2} INVALID_ARGUMENT (a number that does not parse, or the argument count).
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return {-3}
end
if #ARGV < 4 or (#ARGV - 1) % 3 ~= 0 then
  return {-2}
end
local answers = {}
for i = 2, #ARGV, 3 do
  local field = ARGV[i]
  local nextPos = tonumber(ARGV[i + 2])
  local expected = -1
  if ARGV[i + 1] ~= '' then
    expected = tonumber(ARGV[i + 1])
  end
  if not nextPos or not expected then
    return {-2}
  end
  local stored = redis.call('HGET', KEYS[1], field)
  local storedPos = stored and tonumber(stored)
  if storedPos and storedPos < expected then
    answers[#answers + 1] = 12
    answers[#answers + 1] = storedPos
  elseif storedPos and storedPos >= nextPos then
    answers[#answers + 1] = 11
    answers[#answers + 1] = storedPos
  else
    redis.call('HSET', KEYS[1], field, ARGV[i + 2])
    answers[#answers + 1] = 11
    answers[#answers + 1] = nextPos
  end
end
return answers
