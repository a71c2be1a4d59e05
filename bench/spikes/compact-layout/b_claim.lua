--[[
  SPIKE layout B ("value in member"), claim. Default ids only. Same merge as a_claim.lua; a bucket entry is
  offset (8 bytes) .. value, so no HMGET: the taken entries are removed from their bucket and their values moved
  to KEYS[4] ifmsg (offset -> value), where ack deletes them.

  KEYS[1] dueidx, KEYS[2] inflight, KEYS[3] epoch, KEYS[4] ifmsg
  ARGV[1] epoch, ARGV[2] max, ARGV[3] lease ms, ARGV[4] lookahead ms, ARGV[5] bucket key prefix

  Takes up to max due members in (due, offset) order across buckets, by a k-way merge:
  1. idx = the first max entries of dueidx with index time <= now + lookahead (an entry is never later than its
     bucket's earliest member). A bucket whose earliest member is taken is among them.
  2. A heap holds one node per bucket: first the bucket's index entry (time, first offset of the bucket); when that
     node is the smallest, the bucket is opened: its first members are read by rank (ZRANGE i i+F-1 WITHSCORES,
     F = 4 and doubling per bucket), and the node becomes the bucket's next member. Popping a member takes it.
     If idx was cut at max entries, a sentinel just after the last entry stops the merge (a stale-early index can
     make a batch short, never out of order).
  3. Per bucket with members taken: ZREM; its index entry becomes the next member's due time
     (already read, or one ZRANGE 0 0), or is removed when the bucket is empty.
  4. HSET ifmsg, ZADD inflight, report nextDue = first dueidx entry (may be early).

  Returns {now, nextDue or -1, 0, member1, due1, 0, value1, ...} like claim.lua (attempts not kept: always 0).
]]
if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  return {-1}
end
local max = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local lookahead = tonumber(ARGV[4])
if not max or max < 1 or not lease or lease < 0 or not lookahead or lookahead < 0 then
  return {-2}
end
local dkp = ARGV[5] .. 'd:'
local F = 4

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local deadline = now + lease
local limit = now + lookahead
local out = {now, -1, 0}

local idx = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', limit, 'WITHSCORES', 'LIMIT', 0, max)
local nb = #idx / 2

local function off(m) -- 8 bytes big-endian -> number (exact below 2^53); never compare binary strings: strcoll
  local b1, b2, b3, b4, b5, b6, b7, b8 = string.byte(m, 1, 8)
  return ((((((b1 * 256 + b2) * 256 + b3) * 256 + b4) * 256 + b5) * 256 + b6) * 256 + b7) * 256 + b8
end

-- heap of nodes {d, o, v, j}: v = visit (bucket) number; j = 0: not opened yet, j > 0: its j-th read member,
-- v = 0: the sentinel
local heap, hn = {}, 0
local function less(a, b)
  return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2])
end
local function up(i)
  local x = heap[i]
  while i > 1 do
    local p = math.floor(i / 2)
    if less(x, heap[p]) then
      heap[i] = heap[p]
      i = p
    else
      break
    end
  end
  heap[i] = x
end
local function down(i)
  local x = heap[i]
  while true do
    local c = 2 * i
    if c > hn then
      break
    end
    if c < hn and less(heap[c + 1], heap[c]) then
      c = c + 1
    end
    if less(heap[c], x) then
      heap[i] = heap[c]
      i = c
    else
      break
    end
  end
  heap[i] = x
end

local vbid, vscore, vlist, vread, vchunk, vexh = {}, {}, {}, {}, {}, {}
for v = 1, nb do
  local bid, s = idx[2 * v - 1], tonumber(idx[2 * v])
  vbid[v], vscore[v] = bid, s
  hn = hn + 1
  heap[hn] = {s, off(bid), v, 0}
  up(hn)
end
if nb == max then
  hn = hn + 1
  heap[hn] = {vscore[nb], off(vbid[nb]) + 0.5, 0, 0}
  up(hn)
end

local taken = {} -- visit -> members taken
local order = {} -- taken, in claim order: {member, due, visit, position}
while #order < max and hn > 0 do
  local top = heap[1]
  local v, j = top[3], top[4]
  if v == 0 or top[1] > limit then
    break
  end
  local list = vlist[v]
  if j == 0 then
    -- open the bucket
    list = redis.call('ZRANGE', dkp .. vbid[v], 0, F - 1, 'WITHSCORES')
    vlist[v], vread[v], vchunk[v], vexh[v], taken[v] = list, #list / 2, F, #list < 2 * F, 0
  else
    local m = list[2 * j - 1]
    taken[v] = taken[v] + 1
    order[#order + 1] = {m, top[1], v, j}
  end
  j = j + 1
  if j > vread[v] and not vexh[v] then
    -- read the bucket's next members by rank (nothing was removed yet)
    local size = vchunk[v] * 2
    local more = redis.call('ZRANGE', dkp .. vbid[v], vread[v], vread[v] + size - 1, 'WITHSCORES')
    for x = 1, #more do
      list[#list + 1] = more[x]
    end
    vread[v], vchunk[v], vexh[v] = vread[v] + #more / 2, size, #more < 2 * size
  end
  if j <= vread[v] then
    local m = list[2 * j - 1]
    heap[1] = {tonumber(list[2 * j]), off(m), v, j}
  else
    heap[1] = heap[hn]
    heap[hn] = nil
    hn = hn - 1
  end
  if hn > 0 then
    down(1)
  end
end

local setidx, delidx = {}, {}
for v = 1, nb do
  local list = vlist[v]
  if list then
    local t = taken[v]
    local key = dkp .. vbid[v]
    if t > 0 then
      local members = {}
      for j = 1, t do
        members[j] = list[2 * j - 1]
      end
      redis.call('ZREM', key, unpack(members))
    end
    local nextDue
    if vread[v] > t then
      nextDue = list[2 * t + 2]
    elseif not vexh[v] then
      nextDue = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]
    end
    if not nextDue then
      delidx[#delidx + 1] = vbid[v]
    elseif tonumber(nextDue) ~= vscore[v] then
      setidx[#setidx + 1] = nextDue
      setidx[#setidx + 1] = vbid[v]
    end
  end
end
if #delidx > 0 then
  redis.call('ZREM', KEYS[1], unpack(delidx))
end
if #setidx > 0 then
  redis.call('ZADD', KEYS[1], unpack(setidx))
end

local leased, held = {}, {}
for r = 1, #order do
  local e = order[r]
  local m, val = string.sub(e[1], 1, 8), string.sub(e[1], 9)
  leased[#leased + 1] = deadline
  leased[#leased + 1] = m
  held[#held + 1] = m
  held[#held + 1] = val
  out[#out + 1] = m
  out[#out + 1] = e[2]
  out[#out + 1] = 0
  out[#out + 1] = val
end
if #leased > 0 then
  redis.call('HSET', KEYS[4], unpack(held))
  redis.call('ZADD', KEYS[2], unpack(leased))
end

local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if first[2] then
  out[2] = tonumber(first[2])
end
return out
