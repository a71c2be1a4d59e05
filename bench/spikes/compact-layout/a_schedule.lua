--[[
  SPIKE layout A ("buckets"), schedule. Default ids only (member = 8-byte big-endian intake offset).

  Bucket b of a member = offset / 128, named by its first offset as 8 bytes big-endian (bid): the member with the
  low 7 bits cleared. Keys: <prefix>d:<bid> zset member -> due, <prefix>m:<bid> hash member -> stored value,
  KEYS[1] dueidx zset bid -> a time <= the earliest due time in the bucket (exact after a claim visited it).
  Bucket keys are built in the script (not in KEYS): fine on one Redis and in one cluster slot (hash tag in the
  prefix), not declared as Redis Cluster wants it.

  KEYS[1] dueidx, KEYS[2] inc
  ARGV[1] channel, ARGV[2] incarnation, ARGV[3] bucket key prefix
  then per message 5 arguments as today: member, due, header, value, timestamp (timestamp unused: no cancel memory)

  Returns {code per message..., woke} like schedule.lua: 1 STORED, 2 REPLACED, 3 DUPLICATE, -2 bad due; or {-3}.
  Skipped vs today: cancel memory (ALREADY_CANCELLED), a replacement dropping an in-flight lease and attempts.
]]
if redis.call('GET', KEYS[2]) ~= ARGV[2] then
  return {-3}
end
if #ARGV < 8 or (#ARGV - 3) % 5 ~= 0 then
  return {-2}
end
local count = (#ARGV - 3) / 5
local dkp, mkp = ARGV[3] .. 'd:', ARGV[3] .. 'm:'

-- group the batch by bucket, keeping first-seen order (a batch of consecutive offsets spans 2-3 buckets)
local order, groups = {}, {}
for k = 1, count do
  local m = ARGV[5 * k - 1]
  local bid = string.sub(m, 1, 7) .. (string.byte(m, 8) >= 128 and '\128' or '\0')
  local g = groups[bid]
  if not g then
    g = {}
    groups[bid] = g
    order[#order + 1] = bid
  end
  g[#g + 1] = k
end

local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local earliestBefore = tonumber(first[2])
local out = {}
local idx = {}
local earliest, earliestArg = nil, nil
for _, bid in ipairs(order) do
  local g = groups[bid]
  local members = {}
  for j = 1, #g do
    members[j] = ARGV[5 * g[j] - 1]
  end
  local stored = redis.call('HMGET', mkp .. bid, unpack(members))
  local batch = {} -- member -> value stored by an earlier message of this batch
  local values, dues = {}, {}
  local bmin, bminArg = nil, nil
  for j = 1, #g do
    local k = g[j]
    local i = 5 * k - 1
    local member, dueArg, header = ARGV[i], ARGV[i + 1], ARGV[i + 2]
    local due = tonumber(dueArg)
    local code = 1
    if not due then
      code = -2
    else
      local old = batch[member] or stored[j]
      if old then
        if string.sub(old, 1, #header) == header then
          code = 3
        else
          code = 2
        end
      end
      if code ~= 3 then
        batch[member] = ARGV[i + 3]
        values[#values + 1] = member
        values[#values + 1] = ARGV[i + 3]
        dues[#dues + 1] = dueArg
        dues[#dues + 1] = member
        if not bmin or due < bmin then
          bmin, bminArg = due, dueArg
        end
      end
    end
    out[k] = code
  end
  if #values > 0 then
    redis.call('HSET', mkp .. bid, unpack(values))
    redis.call('ZADD', dkp .. bid, unpack(dues))
    idx[#idx + 1] = bminArg
    idx[#idx + 1] = bid
    if not earliest or bmin < earliest then
      earliest, earliestArg = bmin, bminArg
    end
  end
end
if #idx > 0 then
  -- LT: an existing entry only moves earlier, a new bucket is added; the index never is later than the bucket
  redis.call('ZADD', KEYS[1], 'LT', unpack(idx))
end
local woke = 0
if earliest and (not earliestBefore or earliestBefore > earliest) then
  redis.call('PUBLISH', ARGV[1], earliestArg)
  woke = 1
end
out[#out + 1] = woke
return out
