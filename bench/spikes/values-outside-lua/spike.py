#!/usr/bin/env python3
"""Spike: Redis CPU per record when the stored values do not pass through Lua.

Variant "cur": the bridge's schedule.lua (values in ARGV, HSET inside the script) and claim.lua (HMGET inside the
script, values in its reply). Variant "nv": schedule.lua without its HSET (values given as empty strings) followed
by a plain HSET of the values, both inside MULTI/EXEC; claim.lua without its HMGET, followed by a plain HMGET of
the claimed members. Both variants ack with the bridge's ack.lua. The "nv" scripts are derived from the bridge's
scripts at run time (two text replacements each), so they follow any change to them.

What "nv" leaves out (an upper bound of the gain, not a design): a refused schedule (cancelled, invalid) would leave
its value in the hash; a member replaced between the claim and its HMGET would deliver the new version early.

Each run starts its own redis-server (appendonly no), schedules N records of 240 stored bytes (due times random in
the last 100 s) in batches of 250, then claims 400 at a time and acks each claim, and reads Redis' CPU (INFO cpu)
around each phase. Runs alternate the variants.

Usage: N=200000 REPS=4 python3 bench/spikes/values-outside-lua/spike.py   (~1 minute)
"""
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'compact-layout'))
import harness as h
from harness import cpu, pipelined, P, CHANNEL, INC, EPOCH, CLAIM_MAX, LEASE

N = int(os.environ.get('N', 200000))
LUA = os.path.join(HERE, '..', '..', '..', 'bridge', 'src', 'main', 'resources', 'io', 'delaybridge', 'bridge', 'store',
                   'redis', 'lua')
NO_VALUES = {
    'claim.lua': [("local values = redis.call('HMGET', KEYS[2], unpack(members))",
                   "local values = setmetatable({}, {__index = function() return true end})"),
                  ("out[n + 4] = values[j]\n      n = n + 4", "n = n + 3")],
    'schedule.lua': [("each_part('HSET', KEYS[2], values, 2)", "-- the values are written by a plain HSET after it")],
}


def script(name, variant):
    with open(os.path.join(LUA, name)) as f:
        text = f.read()
    if variant == 'nv':
        for old, new in NO_VALUES.get(name, []):
            if old not in text:
                raise SystemExit('%s no longer contains %r: update the spike' % (name, old))
            text = text.replace(old, new)
    return text


def load(c, name, variant):
    return c.call('SCRIPT', 'LOAD', script(name, variant))


KEYS = {k: P + k.encode() for k in ('due', 'msg', 'inflight', 'attempts', 'inc', 'cancelled', 'epoch')}
BATCH = 250


def schedule_commands(variant, sha, msgs):
    """One schedule call per batch; "nv" wraps it and a plain HSET of the values in MULTI/EXEC."""
    k = KEYS
    for start in range(0, len(msgs), BATCH):
        batch = msgs[start:start + BATCH]
        call = ['EVALSHA', sha, 6, k['due'], k['msg'], k['inflight'], k['attempts'], k['inc'], k['cancelled'],
                CHANNEL, INC, b'delay-intake/0', b'PUBLISH']
        if variant == 'cur':
            for m in batch:
                call.extend(m)
            yield call
            continue
        hset = ['HSET', k['msg']]
        for member, due, header, value, timestamp in batch:
            call.extend((member, due, header, b'', timestamp))
            hset.extend((member, value))
        yield ['MULTI']
        yield call
        yield hset
        yield ['EXEC']


def run(variant, seed):
    """Returns Redis CPU per record (us) of scheduling N records, and of claiming and acking them all."""
    k = KEYS
    proc, c = h.start_shard()
    try:
        schedule = load(c, 'schedule.lua', variant)
        claim = load(c, 'claim.lua', variant)
        ack = load(c, 'ack.lua', 'cur')
        msgs = h.past_due_messages(N, int(time.time() * 1000), random.Random(seed))

        before = cpu(c)
        # the same number of batches in flight: "nv" sends four commands a batch
        pipelined(c, schedule_commands(variant, schedule, msgs), window=8 if variant == 'cur' else 32)
        schedule_us = (cpu(c) - before) / N * 1e6

        claimed, previous = 0, None
        before = cpu(c)
        while True:
            if previous:
                c.call('EVALSHA', ack, 5, k['inflight'], k['msg'], k['attempts'], k['epoch'], k['due'], EPOCH,
                       *previous)
            reply = c.call('EVALSHA', claim, 5, k['due'], k['msg'], k['inflight'], k['attempts'], k['epoch'], EPOCH,
                           CLAIM_MAX, LEASE, 0)
            members = reply[3::4 if variant == 'cur' else 3]
            if not members:
                break
            if variant == 'nv':
                values = c.call('HMGET', k['msg'], *members)
                assert all(v is not None for v in values)
            claimed += len(members)
            previous = members
        cycle_us = (cpu(c) - before) / N * 1e6
        assert claimed == N, claimed
        return schedule_us, cycle_us
    finally:
        proc.kill()
        proc.wait()


h.alternate(run, ('cur', 'nv'), int(os.environ.get('REPS', 3)))
