--[[
  lanes: included by the scripts that move a shard's due messages (ScriptRunner puts this text where a script says
  `--#include lanes.lua`, after its header). Not a script of its own.

  A shard's due messages wait in one sorted set per target topic, its lane, so that one target's backlog does not
  stand in front of another target's messages in the claims (claim.lua takes from every due lane in turn):

    <due>             zset  member -> due ms: the lane of messages stored before lanes (and of a value that is no
                            envelope); always looked at, never in the index
    <due>:<target>    zset  member -> due ms: target's lane
    <shard>:lanes     zset  target -> due ms of its lane's first message: one entry per non-empty target lane

  The keys are derived from the shard's due key (same hash tag, same cluster slot). A message's lane is the target of
  its stored value (read from the envelope), so a script that has a member finds its lane through the msg hash; the
  index always holds each non-empty lane's first due time (lowered on an add, looked up again after a removal).
]]
local LANE_DUE, LANE_INDEX, LANE_MSG

-- the shard whose due key is `due`
local function lanes_at(due)
  LANE_DUE = due
  local base = string.sub(due, 1, -4) -- the key without "due"
  LANE_INDEX = base .. 'lanes'
  LANE_MSG = base .. 'msg'
end

-- the target a stored value names: origin header (1 byte length 0..127, or 2 bytes 0x80|(n>>8), n&0xFF), then the
-- envelope (version 1, flags, varint length, target); '' (the old lane) for anything else
local function lane_of(value)
  if not value then
    return ''
  end
  local b = string.byte(value, 1)
  if not b then
    return ''
  end
  local pos
  if b < 128 then
    pos = 2 + b
  else
    pos = 3 + (b - 128) * 256 + (string.byte(value, 2) or 0)
  end
  if string.byte(value, pos) ~= 1 then
    return ''
  end
  local n, shift, p = 0, 1, pos + 2
  for _ = 1, 5 do
    local c = string.byte(value, p)
    if not c then
      return ''
    end
    p = p + 1
    n = n + (c % 128) * shift
    if c < 128 then
      break
    end
    shift = shift * 128
  end
  if n == 0 or p + n - 1 > #value then
    return ''
  end
  return string.sub(value, p, p + n - 1)
end

local function lane_key(lane)
  if lane == '' then
    return LANE_DUE
  end
  return LANE_DUE .. ':' .. lane
end

-- the lane of a stored member (by its value)
local function lane_of_member(member)
  return lane_of(redis.call('HGET', LANE_MSG, member))
end

-- messages were added to `lane`, the earliest at `score`: its first due time can only have moved earlier
local function lane_added(lane, score)
  if lane ~= '' then
    local first = redis.call('ZSCORE', LANE_INDEX, lane) -- not ZADD LT: Redis before 6.2 has no LT
    if not first or tonumber(first) > tonumber(score) then
      redis.call('ZADD', LANE_INDEX, score, lane)
    end
  end
end

-- messages left `lane` or moved later: its index entry follows its first message, or goes
local function lane_fix(lane)
  if lane == '' then
    return
  end
  local first = redis.call('ZRANGE', lane_key(lane), 0, 0, 'WITHSCORES')
  if first[2] then
    redis.call('ZADD', LANE_INDEX, first[2], lane)
  else
    redis.call('ZREM', LANE_INDEX, lane)
  end
end

-- the shard's earliest due time over all lanes, or nil
local function lanes_first()
  local a = redis.call('ZRANGE', LANE_INDEX, 0, 0, 'WITHSCORES')
  local b = redis.call('ZRANGE', LANE_DUE, 0, 0, 'WITHSCORES')
  local x, y = tonumber(a[2]), tonumber(b[2])
  if x and y then
    return math.min(x, y)
  end
  return x or y
end

-- removes `member` of `lane` from the due messages (from the old lane too, where it may wait since before lanes);
-- returns 1 if it was due, else 0; the index follows
local function lane_remove(member, lane)
  if redis.call('ZREM', lane_key(lane), member) == 1 then
    lane_fix(lane)
    return 1
  end
  if lane ~= '' then
    return redis.call('ZREM', LANE_DUE, member)
  end
  return 0
end

-- `member`'s due time in `lane` (or the old lane), or false
local function lane_score(member, lane)
  local score = redis.call('ZSCORE', lane_key(lane), member)
  if not score and lane ~= '' then
    score = redis.call('ZSCORE', LANE_DUE, member)
  end
  return score
end

-- adds members to their lanes: `scored` is {score1, member1, score2, member2, ...}, `lanes` the lane of each pair; a
-- member still in the old lane (stored before lanes) leaves it
local function lanes_add(scored, lanes)
  local old = redis.call('EXISTS', LANE_DUE) == 1
  local by, order = {}, {}
  for j = 1, #lanes do
    local lane = lanes[j]
    local t = by[lane]
    if not t then
      t = {n = 0, low = nil}
      by[lane] = t
      order[#order + 1] = lane
    end
    local score = scored[2 * j - 1]
    t[t.n + 1], t[t.n + 2], t.n = score, scored[2 * j], t.n + 2
    if not t.low or tonumber(score) < tonumber(t.low) then
      t.low = score
    end
  end
  for _, lane in ipairs(order) do
    local t = by[lane]
    local key = lane_key(lane)
    for from = 1, t.n, 1000 do
      local to = math.min(from + 999, t.n)
      if old and lane ~= '' then
        local members, m = {}, 0
        for j = from + 1, to, 2 do
          m = m + 1
          members[m] = t[j]
        end
        redis.call('ZREM', LANE_DUE, unpack(members))
      end
      redis.call('ZADD', key, unpack(t, from, to))
    end
    lane_added(lane, t.low)
  end
end
