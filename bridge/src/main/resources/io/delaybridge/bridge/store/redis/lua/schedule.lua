--[[
  schedule: store messages and index their due times, each in one step, a batch of one shard at a time, in the hot
  tier (payload and due time) or the far tier (an index entry; the payload stays in the intake topic's log). Also
  the thaw: records read back from the intake go hot, unless the far tier no longer holds them. Idempotent on
  (id, origin).

  KEYS[1] due        zset  member -> due ms
  KEYS[2] msg        hash  member -> stored value (origin header + envelope)
  KEYS[3] inflight   zset  member -> lease deadline ms
  KEYS[4] attempts   hash  member -> earlier attempts
  KEYS[5] inc        string  the store's incarnation, as copied into this shard
  KEYS[6] cancelled  zset  member -> timestamp of the newest remembered cancel record of the id
  KEYS[7] epoch      string  the shard's fencing epoch (read by a thaw, and by a fenced intake write)
  KEYS[8] faridx     zset  hour -> its start, epoch ms: the far hours that hold entries
  KEYS[9] fargone    zset  default id's member -> timestamp: its far records this old or older are dropped at thaw
  KEYS[10] pos       hash  "far:<partition>" -> the highest offset of the partition whose own record went far here
                     (beside mark.lua's positions)
  KEYS[11..] far     the far:<hour> strings and farid:<n> hashes the messages name, each once
  ARGV[1] channel    the shard's wake channel (a channel, not a key)
  ARGV[2] incarnation  the incarnation the caller connected to
  ARGV[3] partition  the shard's intake partition as "topic/partition": with a default id's member (its offset) it
                     gives the origin of that id's own record, whose stored value has an empty token
  ARGV[4] publish    PUBLISH, or SPUBLISH on a Redis 7 cluster (sharded pub/sub: the channel carries the shard's
                     hash tag, so the wake-up stays on the shard's node)
  ARGV[5] thaw       empty: the intake's writes. Otherwise a thaw of far records read back from the intake, by the
                     shard's owner (its epoch, decimal) or by an operator ("admin", unfenced)
  ARGV[6] fence      empty: unfenced. Otherwise the epoch (decimal) the writing instance holds for this shard: its
                     intake owns the shard's partition, so its writes are refused once another instance took the shard
                     (a zombie's poll, stopped past its session, written after the new owner delivered and acked it)
  ARGV[7..] messages  10 arguments per message, in intake order:
    member     the message's member (ShardRouter.member)
    due        due time, epoch ms, decimal
    header     the origin header the stored value starts with (StoredValue.header): length, then the origin
               token, topic/partition/offset@timestamp (empty for a default id's own record)
    value      header followed by the envelope; empty for a far message
    timestamp  the intake record's timestamp, epoch ms; empty if unknown
    entry      for a message that waits far: its 12-byte index entry (partition 2, offset 6, ms within the hour 4);
               empty: the message goes hot
    hourkey    the index in KEYS of the entry's far:<hour> string; for an owner's thaw, of the hour's string the
               record was read from; else empty
    version    an explicit id's far version, 20 bytes: intake partition (2), offset (6), timestamp (6, all ones if
               unknown), due ms (6); empty for a default id
    idkey      the index in KEYS of the explicit id's farid:<n> hash; empty for a default id
    marks      an owner's thaw: the entries the record was read for, 16 bytes each (the entry's byte position in
               the hourkey string, 4, then the 12 bytes read there); empty otherwise. The call marks them thawed
               (their last 4 bytes, ms within the hour, become ff ff ff ff), so that a thaw of the hour after one that
               stopped halfway stores nothing twice: the hour goes only once all of it is hot (far_thawed), and a
               record stored hot may be delivered and acked before that

  Why a batch: one call per message cost one script invocation and, with appendfsync always, often one fsync each
  (Redis fsyncs once per event-loop cycle, and reads at most 16 KiB of a client's pipeline per cycle). One call per
  shard and intake poll costs one of each. The messages are applied one after the other, exactly as separate calls
  in that order would be.

  The two tiers hold an id at most once: an explicit id's far version sits in its farid hash (id -> version), and a
  version that goes hot, or is cancelled, removes it; a default id's record waits far under its own position, and a
  record that names the id from elsewhere (a cancel, a replacement) leaves its timestamp in fargone, so the thaw
  drops the older far record; so does its own record stored hot by a later reader (step 3.g).

  Steps
  1. The shard's incarnation must be ARGV[2], else the data this caller knew is gone: INCARNATION_MISMATCH for all.
     A thaw by the owner, and a fenced write, must hold the shard's epoch: else FENCED for all.
  2. Read the stored values of all members, and whether any cancel or far drop is remembered, at once.
  3. Decide each message, in order, against what the messages before it in the batch left:
     0. An owner's thaw of a record none of whose entries still holds the bytes read (each marked thawed by an
        earlier thaw, or the hour gone and written again): DUPLICATE, nothing changes. It was stored hot before, and
        may have been delivered since.
     a. A thaw of an explicit id whose far version is not this record (replaced, cancelled, or thawed before), or of
        a default id with a far drop at least as new as its record (a record of unknown timestamp counts as older; the
        id's own record also at half a millisecond older, step g): SUPERSEDED, nothing changes. A thawed explicit
        id's far version is removed, as it goes hot.
     b. A stored value for the member that starts with the same header is the same intake record read again
        (pending or in flight): DUPLICATE, nothing changes. So is one whose token names the same origin (a value
        stored before tokens carried the timestamp), an explicit id's far version of the same record, and a far
        record appended before in the same batch. (A default id's far record read again in a later batch is appended
        again: only its hour's string could tell, and the thaw stores it once.)
     c. A stored value, or far version, from a newer record of the id: SUPERSEDED, nothing is stored. Newer: a later
        timestamp; with equal or unknown timestamps a higher offset of the same intake partition; otherwise the
        record read last wins. This keeps a reschedule that came in on another partition, or one read again after a
        crash, from putting back the version it replaced. A default id's far drop at least as new: SUPERSEDED.
     d. A remembered cancel of the id from a record at least as new as this one (it came in on another partition and
        was read first, or this record is read again after a crash): ALREADY_CANCELLED, nothing is stored.
     e. Otherwise the message is stored: hot, the value stored and the due time indexed; far, its entry appended to
        its hour (the hour indexed) and an explicit id's version recorded. A replaced earlier version goes from the
        other tier; a replaced hot version loses any in-flight lease and attempt count: a version being delivered
        right now may still be delivered, but its ack no longer deletes the new one (ack deletes only members still
        in flight), and its retry or reclaim finds nothing.
     f. An older remembered cancel of the id is forgotten: this record is newer, so it schedules the id again.
     g. A default id stored by a record that is not its own (a replacement), or thawed by an operator, leaves its
        timestamp as a far drop while the shard has far entries: its own record, far, is dropped at thaw. (A record
        of unknown timestamp leaves none: it could not tell itself from the record it replaces. The intake sends such
        records hot.) So does a default id's own record the intake stores hot while the shard's far index holds its
        due hour and its offset is at most the highest one of its partition written far here ("far:<partition>" in
        pos, kept by step 4): a reader before may have written the same record far and stopped before its commit (it
        read it when it was due further ahead); that entry, thawed after this copy was delivered and acked, would
        deliver the record twice. The drop is half a millisecond before the record's own timestamp, and a thaw of a
        default id's own record counts a drop that far below its timestamp (step a): the far entry of this very
        record goes at thaw, while a replacement of the same millisecond, read later, still replaces it (step c) and a
        newer record is kept. Records read in order leave none: only one read again can be at or below an offset
        written far before.
  4. Write: one variadic HSET and one ZADD for the hot messages (a member given twice keeps its last value and due
     time, as two calls in order would), then the far entries and versions, then the removals and far drops (and the
     highest offset of the partition whose own record went far), then the thaw's marks (each entry still unmarked
     that a message of the call was read for, whatever its code).
     HSET is the first write on purpose: at maxmemory Redis refuses a script's first write (OOM) before anything
     changed. (The pump's scripts start with a removal instead, which Redis allows at maxmemory, so a full Redis
     can still be drained.)
  5. If the earliest due time stored is earlier than the shard's earliest before, publish it on the wake channel.

  Returns {code1, code2, ..., woke}: per message 1 STORED, 2 REPLACED, 3 DUPLICATE, 9 ALREADY_CANCELLED,
  10 SUPERSEDED, -2 INVALID_ARGUMENT (a due time that does not parse); woke 1 if a wake-up was published.
  Or {-3} INCARNATION_MISMATCH, {-1} FENCED, {-2} INVALID_ARGUMENT (argument count).
]]
--#include lanes.lua
if redis.call('GET', KEYS[5]) ~= ARGV[2] then
  return {-3}
end
lanes_at(KEYS[1])
local FIELDS = 10
local HEAD = 6
if #ARGV < HEAD + FIELDS or (#ARGV - HEAD) % FIELDS ~= 0 then
  return {-2}
end
local thaw = ARGV[5]
if thaw ~= '' and thaw ~= 'admin' and redis.call('GET', KEYS[7]) ~= thaw then
  return {-1}
end
if ARGV[6] ~= '' and redis.call('GET', KEYS[7]) ~= ARGV[6] then
  return {-1}
end
local count = (#ARGV - HEAD) / FIELDS
local part = 1000 -- below Lua's unpack limit
local intake = string.match(ARGV[3], '^(.*)/%d+$')

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

-- an unsigned big-endian number of n bytes of s from byte at on
local function number(s, at, n)
  local v = 0
  for b = at, at + n - 1 do
    v = v * 256 + string.byte(s, b)
  end
  return v
end

-- 3 if the new record is the older version's own (read again), 10 if the older version is newer, else 2; given the
-- older version's origin ("" if unknown), "topic/partition", offset and timestamp; timestamp: the new record's
local function newer(oldOrigin, oldSource, oldOffset, oldTimestamp, header, member, timestamp)
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

-- against a stored (hot) value
local function compare(old, header, member, timestamp)
  local oldOrigin, oldSource, oldOffset, oldTimestamp = version(token(old), member)
  return newer(oldOrigin, oldSource, oldOffset, oldTimestamp, header, member, timestamp)
end

-- against an explicit id's far version
local function compareFar(far, header, member, timestamp)
  local source = intake .. '/' .. number(far, 1, 2)
  local offset = number(far, 3, 6)
  local farTimestamp = number(far, 9, 6)
  if farTimestamp == 281474976710655 then
    farTimestamp = nil -- unknown: 6 bytes of ones
  end
  return newer(source .. '/' .. offset, source, offset, farTimestamp, header, member, timestamp)
end

-- tables are filled through counters: #t is a search in Lua 5.1, and it ran several times a message
local stored = {}
local initial = {} -- member -> its stored value when the call began (its lane: lanes.lua), or false
for from = 1, count, part do
  local members, n = {}, 0
  for k = from, math.min(from + part - 1, count) do
    n = n + 1
    members[n] = ARGV[HEAD + 1 + FIELDS * (k - 1)]
  end
  local values = redis.call('HMGET', KEYS[2], unpack(members))
  for j = 1, n do
    stored[members[j]] = values[j]
    initial[members[j]] = values[j]
  end
end
local anyCancelled = redis.call('EXISTS', KEYS[6]) == 1
local anyGone = redis.call('EXISTS', KEYS[9]) == 1
local anyFar = nil -- whether the shard has far entries, read when needed
local farBefore = nil -- the highest offset of the shard's partition whose own record went far before this call
local farField = 'far:' .. string.match(ARGV[3], '(%d+)$')
local farHighest = nil -- the highest offset of the partition whose own record goes far in this call
local earliestBefore = lanes_first()

local farVersions = {} -- member -> far version, or false, as the batch leaves it
local out = {}
local values, dues, replaced, forget, forgotten = {}, {}, {}, {}, {}
local nv, nd, nr, nf = 0, 0, 0, 0
local entries, hours, versions, unversion, gone = {}, {}, {}, {}, {}
local ne, nh, nvs, nu, ng = 0, 0, 0, 0, 0
local hourSeen = {}
local farSeen = {} -- member -> header of the far record this batch appended for it
local earliest, earliestArg = nil, nil
local markedKey, markedAt, nm = {}, {}, 0 -- hour string key and byte position of each entry to mark thawed
local THAWED = '\255\255\255\255'
-- An owner's thaw marks the entries of one hour. They mostly lie close together (a slice of one partition's entries,
-- appended in offset order): then the span from the first to the last is read once, and written back once with the
-- marks, instead of a GETRANGE and a SETRANGE per entry (3.3 against 0.5 us an entry, measured in Redis 7.0).
local SPAN = 65536
local spanKey, spanFrom, span = nil, nil, nil
if thaw ~= '' then
  local low, high = nil, nil
  for k = 1, count do
    local i = HEAD + 1 + FIELDS * (k - 1)
    local marks = ARGV[i + 9]
    if marks ~= '' then
      local key = KEYS[tonumber(ARGV[i + 6])]
      if spanKey and key ~= spanKey then
        low = nil -- entries of two hours: each read and marked on its own
        break
      end
      spanKey = key
      for at = 1, #marks, 16 do
        local position = struct.unpack('>I4', marks, at)
        if not low or position < low then low = position end
        if not high or position > high then high = position end
      end
    end
  end
  if low and high + 12 - low <= SPAN then
    spanFrom = low
    span = redis.call('GETRANGE', spanKey, low, high + 11)
  end
end
-- the 12 bytes at position of an hour's string, as they were when the call began
local function entryAt(key, position)
  if span and key == spanKey then
    return string.sub(span, position - spanFrom + 1, position - spanFrom + 12)
  end
  return redis.call('GETRANGE', key, position, position + 11)
end
for k = 1, count do
  local i = HEAD + 1 + FIELDS * (k - 1)
  local member, dueArg, header = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local timestamp = tonumber(ARGV[i + 4])
  local entry, hourKey, farVersion, idKey = ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8]
  local explicit = string.byte(member, 1) == 255
  local due = tonumber(dueArg)
  local code = 1
  local marks = ARGV[i + 9]
  if marks ~= '' then
    local hourString = KEYS[tonumber(hourKey)]
    local live = false
    for at = 1, #marks, 16 do
      local position = struct.unpack('>I4', marks, at)
      if entryAt(hourString, position) == string.sub(marks, at + 4, at + 15) then
        nm = nm + 1
        markedKey[nm], markedAt[nm] = hourString, position + 8
        live = true
      end
    end
    if not live then
      code = 3 -- thawed before (step 3.0)
    end
  end
  if not due then
    code = -2
  elseif code == 1 then
    local far = false -- an explicit id's far version
    if idKey ~= '' then
      far = farVersions[member]
      if far == nil then
        far = redis.call('HGET', KEYS[tonumber(idKey)], member)
      end
    end
    local thawsFarVersion = false -- a thaw of the explicit id's far version: it leaves the far tier, stored or not
    if thaw ~= '' and explicit then
      if far and string.sub(far, 1, 8) == string.sub(farVersion, 1, 8) then
        thawsFarVersion = true
      else
        code = 10
      end
    end
    if code == 1 and not explicit and anyGone then
      local goneAt = redis.call('ZSCORE', KEYS[9], member)
      -- a thaw of the id's own record is also dropped by the half-millisecond drop its hot copy left (step 3.g)
      local bound = timestamp
      if timestamp and thaw ~= '' and token(header) == '' then
        bound = timestamp - 0.5
      end
      if goneAt and (not timestamp or tonumber(goneAt) >= bound) then
        code = 10 -- a record of unknown time counts as older
      end
    end
    if code == 1 and entry ~= '' and farSeen[member] == header then
      code = 3 -- the same record twice in this batch (across batches the thaw stores it once)
    end
    if code == 1 then
      local old = stored[member]
      if old then
        if string.sub(old, 1, #header) == header then
          code = 3
        else
          code = compare(old, header, member, timestamp)
        end
      elseif far and thaw == '' then
        code = compareFar(far, header, member, timestamp)
      end
    end
    local cancelledAt = nil
    if (code == 1 or code == 2) and anyCancelled and not forgotten[member] then
      cancelledAt = redis.call('ZSCORE', KEYS[6], member)
      if cancelledAt and timestamp and tonumber(cancelledAt) >= timestamp then
        code = 9
      end
    end
    if thawsFarVersion and code ~= 1 and code ~= 2 then
      nu = nu + 1
      unversion[nu] = {tonumber(idKey), member}
      farVersions[member] = false
    end
    if code == 1 or code == 2 then
      if stored[member] and entry ~= '' then
        -- a hot version replaced by a far one: it leaves the hot tier whole
        nr = nr + 1
        replaced[nr] = member
        stored[member] = false
      end
      if far and (entry == '' or thaw ~= '') then
        nu = nu + 1
        unversion[nu] = {tonumber(idKey), member}
        farVersions[member] = false
      end
      if entry == '' then
        stored[member] = ARGV[i + 3]
        values[nv + 1], values[nv + 2], nv = member, ARGV[i + 3], nv + 2
        dues[nd + 1], dues[nd + 2], nd = dueArg, member, nd + 2
        if code == 2 then
          nr = nr + 1
          replaced[nr] = member
        end
        if not earliest or due < earliest then
          earliest, earliestArg = due, dueArg
        end
      else
        local hour = math.floor(due / 3600000)
        ne = ne + 1
        entries[ne] = {tonumber(hourKey), entry}
        if not hourSeen[hour] then
          hourSeen[hour] = true
          hours[nh + 1], hours[nh + 2], nh = string.format('%d', hour * 3600000), string.format('%d', hour), nh + 2
        end
        anyFar = true
        farSeen[member] = header
        if not explicit and thaw == '' and token(header) == '' then
          local _, _, offset = version('', member)
          farHighest = math.max(farHighest or offset, offset)
        end
        if explicit then
          nvs = nvs + 1
          versions[nvs] = {tonumber(idKey), member, farVersion}
          farVersions[member] = farVersion
        end
      end
      if cancelledAt then
        nf = nf + 1
        forget[nf] = member
        forgotten[member] = true
      end
      if not explicit and timestamp and (thaw == 'admin' or (thaw == '' and token(header) ~= '')) then
        if anyFar == nil then
          anyFar = redis.call('EXISTS', KEYS[8]) == 1
        end
        if anyFar then
          ng = ng + 1
          gone[ng] = {thaw == 'admin' and timestamp or timestamp - 1, member}
        end
      elseif not explicit and timestamp and thaw == '' and entry == '' then
        -- its own record stored hot, read again while its due hour holds far entries: the reader before may have
        -- left it there
        if anyFar == nil then
          anyFar = redis.call('EXISTS', KEYS[8]) == 1
        end
        if anyFar and farBefore == nil then
          local highest = redis.call('HGET', KEYS[10], farField)
          farBefore = highest and tonumber(highest) or -1
        end
        local _, _, offset = version('', member)
        if anyFar and offset <= farBefore
            and redis.call('ZSCORE', KEYS[8], string.format('%d', math.floor(due / 3600000))) then
          ng = ng + 1
          gone[ng] = {timestamp - 0.5, member}
        end
      end
    end
  end
  out[k] = code
end

if nv > 0 then
  each_part('HSET', KEYS[2], values, 2)
  -- each member once, in the lane of its last value; one stored before in another lane leaves that lane
  local last = {}
  for j = 1, nd, 2 do
    last[dues[j + 1]] = j
  end
  local scored, lanes, ns = {}, {}, 0
  for j = 1, nd, 2 do
    local member = dues[j + 1]
    if last[member] == j then
      local lane = lane_of(values[j + 1])
      local was = initial[member]
      if was then
        local wasLane = lane_of(was)
        if wasLane ~= lane then
          lane_remove(member, wasLane)
        end
      end
      ns = ns + 1
      scored[2 * ns - 1], scored[2 * ns] = dues[j], member
      lanes[ns] = lane
    end
  end
  lanes_add(scored, lanes)
end
if ne > 0 then
  each_part('ZADD', KEYS[8], hours, 2)
  for j = 1, ne do
    redis.call('APPEND', KEYS[entries[j][1]], entries[j][2])
  end
end
for j = 1, nvs do
  redis.call('HSET', KEYS[versions[j][1]], versions[j][2], versions[j][3])
end
if nr > 0 then
  -- an earlier version may be in flight or have failed attempts; a new member has neither (ack, cancel and claim
  -- remove them together with the payload). One replaced by a far version leaves the hot tier (also when a message
  -- before it in this batch had stored it: those writes came first).
  each_part('ZREM', KEYS[3], replaced, 1)
  each_part('HDEL', KEYS[4], replaced, 1)
  for j = 1, nr do
    local member = replaced[j]
    if stored[member] == false then
      -- hot before the call, or made hot by a message before it in the batch
      lane_remove(member, lane_of(initial[member]))
      lane_remove(member, lane_of(redis.call('HGET', KEYS[2], member)))
      redis.call('HDEL', KEYS[2], member)
    end
  end
end
for j = 1, nu do
  if farVersions[unversion[j][2]] == false then
    redis.call('HDEL', KEYS[unversion[j][1]], unversion[j][2])
  end
end
for j = 1, ng do
  local at = gone[j][1]
  redis.call('ZADD', KEYS[9], 'GT', at % 1 == 0 and string.format('%d', at) or string.format('%.1f', at), gone[j][2])
end
if farHighest then
  local highest = redis.call('HGET', KEYS[10], farField)
  if not highest or tonumber(highest) < farHighest then
    redis.call('HSET', KEYS[10], farField, string.format('%d', farHighest))
  end
end
if nf > 0 then
  each_part('ZREM', KEYS[6], forget, 1)
end
if span then
  -- the span again, each marked entry's last 4 bytes replaced
  local inSpan, ni = {}, 0
  for j = 1, nm do
    if markedKey[j] == spanKey then
      ni = ni + 1
      inSpan[ni] = markedAt[j] - spanFrom + 1
    else
      redis.call('SETRANGE', markedKey[j], markedAt[j], THAWED)
    end
  end
  if ni > 0 then
    table.sort(inSpan)
    local parts, np, from = {}, 0, 1
    for j = 1, ni do
      if inSpan[j] >= from then -- an entry named twice is marked once
        parts[np + 1], parts[np + 2], np = string.sub(span, from, inSpan[j] - 1), THAWED, np + 2
        from = inSpan[j] + 4
      end
    end
    parts[np + 1] = string.sub(span, from)
    redis.call('SETRANGE', spanKey, spanFrom, table.concat(parts))
  end
else
  for j = 1, nm do
    redis.call('SETRANGE', markedKey[j], markedAt[j], THAWED)
  end
end

local woke = 0
if earliest and (not earliestBefore or earliestBefore > earliest) then
  redis.call(ARGV[4], ARGV[1], earliestArg)
  woke = 1
end
out[count + 1] = woke
return out
