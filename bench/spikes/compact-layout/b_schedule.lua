--[[
  SPIKE layout B ("value in member"), schedule. Default ids only (member = 8-byte big-endian intake offset).

  Bucket b = offset / 128, named by its first offset as 8 bytes (bid). <prefix>d:<bid> zset: entry = offset (8
  bytes) .. stored value, score = due. KEYS[1] dueidx zset bid -> time <= the bucket's earliest due.
  While in flight a message's value is in KEYS[3] ifmsg hash offset -> value (claim moves it there), so ack never
  touches a bucket.

  KEYS[1] dueidx, KEYS[2] inc, KEYS[3] ifmsg
  ARGV[1] channel, ARGV[2] incarnation, ARGV[3] bucket key prefix
  then per message 5 arguments as today: member, due, header, value, timestamp (timestamp unused)

  A re-read is found by offset: every bucket the batch touches is read whole (ZRANGE 0 -1, values included) and
  the batch's members are looked up in ifmsg (one HMGET).
  Returns {code per message..., woke} like schedule.lua, or {-3}.
  Skipped vs today: cancel memory, a replacement of a member in flight (it would stay in flight too).
]]
if redis.call('GET', KEYS[2]) ~= ARGV[2] then
  return {-3}
end
if #ARGV < 8 or (#ARGV - 3) % 5 ~= 0 then
  return {-2}
end
local count = (#ARGV - 3) / 5
local dkp = ARGV[3] .. 'd:'

local order, groups = {}, {}
local all = {}
for k = 1, count do
  local m = ARGV[5 * k - 1]
  all[k] = m
  local bid = string.sub(m, 1, 7) .. (string.byte(m, 8) >= 128 and '\128' or '\0')
  local g = groups[bid]
  if not g then
    g = {}
    groups[bid] = g
    order[#order + 1] = bid
  end
  g[#g + 1] = k
end
local flying = redis.call('HMGET', KEYS[3], unpack(all))

local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local earliestBefore = tonumber(first[2])
local out = {}
local idx = {}
local earliest, earliestArg = nil, nil
for _, bid in ipairs(order) do
  local g = groups[bid]
  local key = dkp .. bid
  local entries = redis.call('ZRANGE', key, 0, -1)
  local pending = {} -- offset -> whole entry
  for j = 1, #entries do
    local e = entries[j]
    pending[string.sub(e, 1, 8)] = e
  end
  local add, addDue, addOrder = {}, {}, {}
  local drop = {}
  local bmin, bminArg = nil, nil
  for j = 1, #g do
    local k = g[j]
    local i = 5 * k - 1
    local member, dueArg, header, value = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
    local due = tonumber(dueArg)
    local code = 1
    if not due then
      code = -2
    else
      local old
      if add[member] then
        old = string.sub(add[member], 9)
      elseif pending[member] then
        old = string.sub(pending[member], 9)
      else
        old = flying[k] or nil
      end
      if old then
        if string.sub(old, 1, #header) == header then
          code = 3
        else
          code = 2
        end
      end
      if code ~= 3 then
        if pending[member] then
          drop[#drop + 1] = pending[member]
          pending[member] = nil
        end
        if not add[member] then
          addOrder[#addOrder + 1] = member
        end
        add[member] = member .. value
        addDue[member] = dueArg
        if not bmin or due < bmin then
          bmin, bminArg = due, dueArg
        end
      end
    end
    out[k] = code
  end
  if #addOrder > 0 then
    local args = {}
    for j = 1, #addOrder do
      local m = addOrder[j]
      args[#args + 1] = addDue[m]
      args[#args + 1] = add[m]
    end
    redis.call('ZADD', key, unpack(args))
    idx[#idx + 1] = bminArg
    idx[#idx + 1] = bid
    if not earliest or bmin < earliest then
      earliest, earliestArg = bmin, bminArg
    end
  end
  if #drop > 0 then
    redis.call('ZREM', key, unpack(drop))
  end
end
if #idx > 0 then
  redis.call('ZADD', KEYS[1], 'LT', unpack(idx))
end
local woke = 0
if earliest and (not earliestBefore or earliestBefore > earliest) then
  redis.call('PUBLISH', ARGV[1], earliestArg)
  woke = 1
end
out[#out + 1] = woke
return out
