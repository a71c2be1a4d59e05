--[[
  init: create the store's meta hash on first start; read it on every start.

  KEYS[1] meta       hash  shards, incarnation, created, initialised
  ARGV[1] shards     the shard count to use if the store is new
  ARGV[2] incarnation  a fresh random UUID, used if the store is new
  ARGV[3] created    epoch ms, recorded if the store is new

  Steps
  1. Set shards, incarnation and created only where absent: the first start fixes them, later starts keep them.
     (initialised is set by the caller once every shard holds its incarnation copy.)

  Returns {shards, incarnation, initialised or false}.
]]
redis.call('HSETNX', KEYS[1], 'shards', ARGV[1])
redis.call('HSETNX', KEYS[1], 'incarnation', ARGV[2])
redis.call('HSETNX', KEYS[1], 'created', ARGV[3])
return redis.call('HMGET', KEYS[1], 'shards', 'incarnation', 'initialised')
