--[[
  schedule: store messages and index their due times, each in one step, a batch of one shard at a time.
  Idempotent on (id, origin).

  KEYS[1] due        zset  member -> due ms
  KEYS[2] msg        hash  member -> stored value (origin header + envelope)
  KEYS[3] inflight   zset  member -> lease deadline ms
  KEYS[4] attempts   hash  member -> earlier attempts
  KEYS[5] inc        string  the store's incarnation, as copied into this shard
  KEYS[6] cancelled  zset  member -> timestamp of the newest remembered cancel record of the id
  ARGV[1] channel    the shard's wake channel (a channel, not a key)
  ARGV[2] incarnation  the incarnation the caller connected to
  ARGV[3] partition  the shard's intake partition as "topic/partition": with a default id's member (its offset) it
                     gives the origin of that id's own record, whose stored value has an empty token
  ARGV[4] publish    PUBLISH, or SPUBLISH on a Redis 7 cluster (sharded pub/sub: the channel carries the shard's
                     hash tag, so the wake-up stays on the shard's node)
  ARGV[5..] messages  5 arguments per message, in intake order:
    member     the message's member (ShardRouter.member)
    due        due time, epoch ms, decimal
    header     the origin header the stored value starts with (StoredValue.header): length, then the origin
               token, topic/partition/offset@timestamp (empty for a default id's own record)
    value      header followed by the envelope
    timestamp  the intake record's timestamp, epoch ms; empty if unknown

  Why a batch: one call per message cost one script invocation and, with appendfsync always, often one fsync each
  (Redis fsyncs once per event-loop cycle, and reads at most 16 KiB of a client's pipeline per cycle). One call per
  shard and intake poll costs one of each. The messages are applied one after the other, exactly as separate calls
  in that order would be.

  Steps
  1. The shard's incarnation must be ARGV[2], else the data this caller knew is gone: INCARNATION_MISMATCH for all.
  2. Read the stored values of all members, and whether any cancel is remembered, at once.
  3. Decide each message, in order, against what the messages before it in the batch left:
     a. A stored value for the member that starts with the same header is the same intake record read again
        (pending or in flight): DUPLICATE, nothing changes. So is one whose token names the same origin (a value
        stored before tokens carried the timestamp).
     b. A stored value from a newer record of the id: SUPERSEDED, nothing is stored. Newer: a later timestamp (the
        header's against ARGV's); with equal or unknown timestamps a higher offset of the same intake partition;
        otherwise the record read last wins. This keeps a reschedule that came in on another partition, or one read
        again after a crash, from putting back the version it replaced.
     c. A remembered cancel of the id from a record at least as new as this one (it came in on another partition and
        was read first, or this record is read again after a crash): ALREADY_CANCELLED, nothing is stored.
     d. Otherwise the value is stored and the due time indexed; a replaced earlier version loses any in-flight lease
        and attempt count: a version being delivered right now may still be delivered, but its ack no longer deletes
        the new one (ack deletes only members still in flight), and its retry or reclaim finds nothing.
     e. An older remembered cancel of the id is forgotten: this record is newer, so it schedules the id again.
  4. Write: one variadic HSET and one ZADD for the whole batch (a member given twice keeps its last value and due
     time, as two calls in order would), then the removals for replaced and un-cancelled members.
     HSET is the first write on purpose: at maxmemory Redis refuses a script's first write (OOM) before anything
     changed. (The pump's scripts start with a removal instead, which Redis allows at maxmemory, so a full Redis
     can still be drained.)
  5. If the earliest due time stored is earlier than the shard's earliest before, publish it on the wake channel.

  Returns {code1, code2, ..., woke}: per message 1 STORED, 2 REPLACED, 3 DUPLICATE, 9 ALREADY_CANCELLED,
  10 SUPERSEDED, -2 INVALID_ARGUMENT (a due time that does not parse); woke 1 if a wake-up was published.
  Or {-3} INCARNATION_MISMATCH, {-2} INVALID_ARGUMENT (argument count).
]]
if redis.call('GET', KEYS[5]) ~= ARGV[2] then
  return {-3}
end
if #ARGV < 9 or (#ARGV - 4) % 5 ~= 0 then
  return {-2}
end
local count = (#ARGV - 4) / 5
local part = 1000 -- below Lua's unpack limit

-- variadic commands in parts: cmd key a1 a2 ... (step = arguments per item)
local function each_part(cmd, key, args, step)
  local size = part * step
  for from = 1, #args, size do
    redis.call(cmd, key, unpack(args, from, math.min(from + size - 1, #args)))
  end
end

-- the origin token at the start of a stored value or header: 1 length byte below 128, or 2 with the top bit set
local function token(value)
  local first = string.byte(value, 1)
  if first < 128 then
    return string.sub(value, 2, 1 + first)
  end
  return string.sub(value, 3, 2 + (first - 128) * 256 + string.byte(value, 2))
end

-- origin, "topic/partition", offset and timestamp of a version of member (nil where it does not say): read off its
-- token, or, for a default id's own record (empty token), the shard's partition and the offset the member holds
local function version(tok, member)
  if tok == '' then
    if string.byte(member, 1) == 255 then
      return '', nil, nil, nil
    end
    local offset = 0
    for b = 1, #member do
      offset = offset * 256 + string.byte(member, b)
    end
    return '', ARGV[3], offset, nil
  end
  local origin, timestamp = string.match(tok, '^(.*)@(%d+)$')
  origin = origin or tok
  local source, offset = string.match(origin, '^(.+)/(%d+)$')
  return origin, source, tonumber(offset), tonumber(timestamp)
end

-- 3 if the new record is the stored one (read again), 10 if the stored one is newer, else 2; timestamp: the new
-- record's (nil or negative: unknown)
local function compare(old, header, member, timestamp)
  local oldOrigin, oldSource, oldOffset, oldTimestamp = version(token(old), member)
  local newOrigin, newSource, newOffset = version(token(header), member)
  if newOrigin ~= '' and newOrigin == oldOrigin then
    return 3
  end
  if timestamp and timestamp >= 0 and oldTimestamp and timestamp ~= oldTimestamp then
    return timestamp < oldTimestamp and 10 or 2
  end
  if newSource and newSource == oldSource and newOffset < oldOffset then
    return 10
  end
  return 2
end

-- tables are filled through counters: #t is a search in Lua 5.1, and it ran several times a message
local stored = {}
for from = 1, count, part do
  local members, n = {}, 0
  for k = from, math.min(from + part - 1, count) do
    n = n + 1
    members[n] = ARGV[5 * k]
  end
  local values = redis.call('HMGET', KEYS[2], unpack(members))
  for j = 1, n do
    stored[members[j]] = values[j]
  end
end
local anyCancelled = redis.call('EXISTS', KEYS[6]) == 1
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local earliestBefore = tonumber(first[2])

local out = {}
local values, dues, replaced, forget, forgotten = {}, {}, {}, {}, {}
local nv, nd, nr, nf = 0, 0, 0, 0
local earliest, earliestArg = nil, nil
for k = 1, count do
  local i = 5 * k
  local member, dueArg, header = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local due = tonumber(dueArg)
  local code = 1
  if not due then
    code = -2
  else
    local old = stored[member]
    if old then
      if string.sub(old, 1, #header) == header then
        code = 3
      else
        code = compare(old, header, member, tonumber(ARGV[i + 4]))
      end
    end
    local cancelledAt = nil
    if code ~= 3 and code ~= 10 and anyCancelled and not forgotten[member] then
      cancelledAt = redis.call('ZSCORE', KEYS[6], member)
      local timestamp = tonumber(ARGV[i + 4])
      if cancelledAt and timestamp and tonumber(cancelledAt) >= timestamp then
        code = 9
      end
    end
    if code == 1 or code == 2 then
      stored[member] = ARGV[i + 3]
      values[nv + 1], values[nv + 2], nv = member, ARGV[i + 3], nv + 2
      dues[nd + 1], dues[nd + 2], nd = dueArg, member, nd + 2
      if code == 2 then
        nr = nr + 1
        replaced[nr] = member
      end
      if cancelledAt then
        nf = nf + 1
        forget[nf] = member
        forgotten[member] = true
      end
      if not earliest or due < earliest then
        earliest, earliestArg = due, dueArg
      end
    end
  end
  out[k] = code
end

if #values > 0 then
  each_part('HSET', KEYS[2], values, 2)
  each_part('ZADD', KEYS[1], dues, 2)
end
if #replaced > 0 then
  -- an earlier version may be in flight or have failed attempts; a new member has neither (ack, cancel and claim
  -- remove them together with the payload)
  each_part('ZREM', KEYS[3], replaced, 1)
  each_part('HDEL', KEYS[4], replaced, 1)
end
if #forget > 0 then
  each_part('ZREM', KEYS[6], forget, 1)
end

local woke = 0
if earliest and (not earliestBefore or earliestBefore > earliest) then
  redis.call(ARGV[4], ARGV[1], earliestArg)
  woke = 1
end
out[count + 1] = woke
return out
