--[[
  acquire: take ownership of a shard by raising its fencing epoch. Every script that changes the shard on behalf of an
  owner (claim, ack, retry, reclaim) refuses any other epoch, so an owner that lost the shard (GC pause, network cut)
  can no longer claim, ack or move its messages.

  KEYS[1] epoch      string  the shard's fencing epoch
  (no ARGV)

  Steps
  1. PERSIST the epoch (it never expires anyway). At maxmemory Redis refuses a script's first write if that write may
     grow memory, as INCR may, but never stops a script that has already written. PERSIST cannot grow memory, so it
     goes first: on a full Redis a new owner must still be able to take a shard over and drain it.
  2. INCR the epoch.

  Returns the new epoch (>= 1).
]]
redis.call('PERSIST', KEYS[1])
return redis.call('INCR', KEYS[1])
