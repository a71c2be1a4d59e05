--[[
  init: create the store's meta hash on first start; read it on every start.

  KEYS[1] meta       hash  shards, incarnation, created, initialised, layout
  ARGV[1] shards     the shard count to use if the store is new
  ARGV[2] incarnation  a fresh random UUID, used if the store is new
  ARGV[3] created    epoch ms, recorded if the store is new
  ARGV[4] layout     the layout version this bridge writes: recorded if the meta hash has none or an older one

  Steps
  1. Set shards, incarnation and created only where absent: the first start fixes them, later starts keep them.
     (initialised is set by the caller once every shard holds its incarnation copy.)
  2. Raise layout to ARGV[4] where it is absent or older: a store without one was written before layouts had
     versions, in layout 1, and every layout reads the ones before it (layout 2 added the far tier's keys beside
     layout 1's, layout 3 the lanes), so the store works on; a bridge of an older layout then refuses it. A newer layout, or one that is
     not a number, is left as it is: the caller refuses it.

  Returns {shards, incarnation, initialised or false, layout}.
]]
redis.call('HSETNX', KEYS[1], 'shards', ARGV[1])
redis.call('HSETNX', KEYS[1], 'incarnation', ARGV[2])
redis.call('HSETNX', KEYS[1], 'created', ARGV[3])
local layout = redis.call('HGET', KEYS[1], 'layout')
if not layout or (tonumber(layout) and tonumber(layout) < tonumber(ARGV[4])) then
  redis.call('HSET', KEYS[1], 'layout', ARGV[4])
end
return redis.call('HMGET', KEYS[1], 'shards', 'incarnation', 'initialised', 'layout')
