--[[
  rate: take up to `want` tokens of a delivery cap that every instance of the service shares, by the generic cell
  rate algorithm (GCRA): the key holds the theoretical arrival time (TAT) of the next token, in microseconds of Redis'
  clock. A token may go while TAT - now <= (burst - 1) * interval; each token taken moves TAT on by one interval. Over
  any window of w seconds, at most burst + w / interval tokens are granted, however many instances ask, and an
  instance that joins or leaves changes nothing: the state is this one key.

  KEYS[1] rate      string  TAT in microseconds (Redis TIME); expires when the bucket is full again
  ARGV[1] interval  microseconds between tokens: 1,000,000 / cap (a decimal, > 0)
  ARGV[2] burst     tokens that may go at once (>= 1)
  ARGV[3] want      tokens asked for (>= 1)

  Steps
  1. now = Redis TIME in microseconds: the one clock all instances agree on.
  2. tat = the stored TAT, or now if none is stored or it is past.
  3. granted = min(want, tokens free now): floor(((burst - 1) * interval - (tat - now)) / interval) + 1, at least 0.
  4. If granted > 0: tat += granted * interval, stored with an expiry of (tat - now) ms plus a second (a full bucket
     needs no key).
  5. wait = microseconds until the next token is free: tat - (burst - 1) * interval - now, at least 0.

  Returns {granted, wait}, or {-2} INVALID_ARGUMENT.
]]
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
if not interval or interval <= 0 or not burst or burst < 1 or not want or want < 1 then
  return {-2}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if tat < now then
  tat = now
end
local tolerance = (burst - 1) * interval
local free = math.floor((tolerance - (tat - now)) / interval) + 1
local granted = math.min(want, math.max(free, 0))
if granted > 0 then
  tat = tat + granted * interval
  redis.call('SET', KEYS[1], string.format('%.17g', tat), 'PX', math.ceil((tat - now) / 1000) + 1000)
end
local wait = tat - tolerance - now
if wait < 0 then
  wait = 0
end
return {granted, math.ceil(wait)}
