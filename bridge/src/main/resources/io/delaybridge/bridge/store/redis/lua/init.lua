--[[
  init: create the store's meta hash on first start; read it on every start.

  KEYS[1] meta       hash  shards, incarnation, created, initialised, layout
  ARGV[1] shards     the shard count to use if the store is new
  ARGV[2] incarnation  a fresh random UUID, used if the store is new
  ARGV[3] created    epoch ms, recorded if the store is new
  ARGV[4] layout     the layout version this bridge writes, recorded if the meta hash has none

  Steps
  1. Set shards, incarnation and created only where absent: the first start fixes them, later starts keep them.
     (initialised is set by the caller once every shard holds its incarnation copy.)
  2. Set layout where absent: a store without one was written before layouts had versions, in layout 1, which is
     what a bridge that records 1 writes. A bridge that writes a newer layout raises it (never this script); the
     caller refuses a layout newer than it knows.

  Returns {shards, incarnation, initialised or false, layout}.
]]
redis.call('HSETNX', KEYS[1], 'shards', ARGV[1])
redis.call('HSETNX', KEYS[1], 'incarnation', ARGV[2])
redis.call('HSETNX', KEYS[1], 'created', ARGV[3])
redis.call('HSETNX', KEYS[1], 'layout', ARGV[4])
return redis.call('HMGET', KEYS[1], 'shards', 'incarnation', 'initialised', 'layout')
