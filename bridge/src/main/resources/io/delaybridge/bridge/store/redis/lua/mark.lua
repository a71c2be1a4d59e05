--[[
  mark: record the intake's position in one partition behind a write batch, and tell whether the store lost writes.

  KEYS[1] pos        hash  intake partition -> position: every record of that partition below it is stored
  KEYS[2] inc        string  the store's incarnation, as copied into this shard
  ARGV[1] incarnation  the incarnation the caller connected to
  ARGV[2] partition  the intake partition (the hash field)
  ARGV[3] expected   the position the caller believes the store holds already (the end of the partition's previous
                     batch in this run, or its committed offset); empty: no expectation
  ARGV[4] next       the batch's last offset + 1

  Why: the caller writes this right after the batch's writes, in the same pipeline and on the same node, so Redis'
  replication stream carries it after them. A replica that has the mark has every write before it; a replica promoted
  by a fail-over before it received the master's last writes holds an older mark, and the next batch finds it.

  Steps
  1. The shard's incarnation must be ARGV[1]: else INCARNATION_MISMATCH (the shard lost everything).
  2. A stored position below ARGV[3] means writes the store acknowledged are gone: GAP with the stored position, and
     the position is not advanced (the caller reads the partition again from it). A missing position is accepted: a
     new store, or one written by a bridge that did not mark positions.
  3. Otherwise store max(stored, ARGV[4]): a batch read again after a rewind never moves the position back.

  Returns {11 MARKED, position} or {12 GAP, stored position}; {-3} INCARNATION_MISMATCH, {-2} INVALID_ARGUMENT
  (a number that does not parse).
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return {-3}
end
local nextPos = tonumber(ARGV[4])
local expected = -1
if ARGV[3] ~= '' then
  expected = tonumber(ARGV[3])
end
if not nextPos or not expected then
  return {-2}
end
local stored = redis.call('HGET', KEYS[1], ARGV[2])
if stored then
  local storedPos = tonumber(stored)
  if storedPos < expected then
    return {12, storedPos}
  end
  if storedPos >= nextPos then
    return {11, storedPos}
  end
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[4])
return {11, nextPos}
