--[[
  far_thawed: the shard's owner stored in the hot tier every record of an hour's string it read (the first length
  bytes): the string and its index entry go, unless entries were appended since the read.

  KEYS[1] faridx     zset  hour -> its start, epoch ms
  KEYS[2] epoch      string  the shard's fencing epoch
  KEYS[3] fargone    zset  default id's member -> timestamp: its far records this old or older are dropped at thaw
  KEYS[4..] hour     string  the far:<hour> string that was read (one)
  ARGV[1] epoch      the caller's epoch
  ARGV[2] hour       the hour, decimal (its member in faridx)
  ARGV[3] length     how many bytes of the string the caller read and stored hot
  ARGV[4] forget     far drops older than this (epoch ms) are forgotten: no record still far is that old; empty:
                     forget none

  Steps
  1. The shard's epoch must be ARGV[1]: else FENCED (another instance owns the shard and thaws it).
  2. If the string holds no more than length bytes: DEL it and ZREM the hour. Otherwise records were indexed in this
     hour after the read: keep both, and return the length, so that the caller reads the rest from there.
  3. With no far hour left, every far drop goes; otherwise those older than ARGV[4].

  Returns 0 (the hour is gone), the string's length (more to thaw from ARGV[3] on), or -1 FENCED.
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return -1
end
local length = redis.call('STRLEN', KEYS[4])
if length > tonumber(ARGV[3]) then
  return length
end
redis.call('DEL', KEYS[4])
redis.call('ZREM', KEYS[1], ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[3])
elseif ARGV[4] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[4])
end
return 0
