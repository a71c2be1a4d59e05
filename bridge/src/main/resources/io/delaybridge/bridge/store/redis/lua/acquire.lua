--[[
  acquire: take ownership of a shard by raising its fencing epoch. Every script that changes the shard on behalf of an
  owner (claim, ack, retry, reclaim) refuses any other epoch, so an owner that lost the shard (GC pause, network cut)
  can no longer claim, ack or move its messages.

  KEYS[1] epoch      string  the shard's fencing epoch
  (no ARGV)

  Returns the new epoch (>= 1).
]]
return redis.call('INCR', KEYS[1])
