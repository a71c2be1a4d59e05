#!/usr/bin/env python3
"""Spike: the floor of Redis' CPU per record for the store's layout, against the bridge's scripts.

Variant "scripts": the bridge's schedule.lua, claim.lua and ack.lua, as they are in the bridge.
Variant "bare": the same data-structure work as plain commands, no Lua and no atomicity: per schedule batch one
variadic HSET of the values and one ZADD of the due times; per claim one ZRANGEBYSCORE ... WITHSCORES LIMIT, then one
ZREM from due, one HMGET of the values and one ZADD into in-flight; per ack one ZREM from in-flight and one HDEL.
Each group of a step is sent in one write, so it costs Redis the fewest event-loop cycles it can.
"bare" is not a store (a crash between its commands loses or repeats messages, two pumps could take the same
message, nothing checks the epoch or the incarnation): it is what any store keeping each message as one due-zset
member, one hash field and one in-flight member costs Redis at the least, so it bounds what rewriting the scripts
could save.

Each run starts its own redis-server (appendonly no: the CPU of the work, not of the fsyncs), schedules N records of
240 stored bytes (due times random in the last 100 s) in batches of 250 (8 batches in flight), then claims 400 at a
time and acks each claim, and reads Redis' CPU (INFO cpu) around each phase. Runs alternate the variants.

Usage: N=200000 REPS=4 python3 bench/spikes/redis-floor/floor.py   (~1 minute)
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'compact-layout'))
import harness as h
from harness import cpu, pipelined, P, CHANNEL, INC, EPOCH, CLAIM_MAX, LEASE, SCHED_BATCH

N = int(os.environ.get('N', 200000))
KEYS = {k: P + k.encode() for k in ('due', 'msg', 'inflight', 'attempts', 'inc', 'cancelled', 'epoch')}


def schedule_commands(variant, sha, msgs):
    k = KEYS
    for start in range(0, len(msgs), SCHED_BATCH):
        batch = msgs[start:start + SCHED_BATCH]
        if variant == 'scripts':
            call = ['EVALSHA', sha, 6, k['due'], k['msg'], k['inflight'], k['attempts'], k['inc'], k['cancelled'],
                    CHANNEL, INC, b'delay-intake/0', b'PUBLISH']
            for m in batch:
                call.extend(m)
            yield call
            continue
        hset, zadd = ['HSET', k['msg']], ['ZADD', k['due']]
        for member, due, _header, value, _timestamp in batch:
            hset.extend((member, value))
            zadd.extend((due, member))
        yield hset
        yield zadd


def claim_and_ack(variant, c, claim, ack, previous, lease):
    """Acks the previous claim and claims the next; returns the claimed members."""
    k = KEYS
    if variant == 'scripts':
        if previous:
            c.call('EVALSHA', ack, 5, k['inflight'], k['msg'], k['attempts'], k['epoch'], k['due'], EPOCH, *previous)
        reply = c.call('EVALSHA', claim, 5, k['due'], k['msg'], k['inflight'], k['attempts'], k['epoch'], EPOCH,
                       CLAIM_MAX, LEASE, 0)
        members = reply[3::4]
        assert all(v is not None for v in reply[6::4])
        return members
    commands = []
    if previous:
        commands += [['ZREM', k['inflight']] + previous, ['HDEL', k['msg']] + previous]
    commands.append(['ZRANGEBYSCORE', k['due'], '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, CLAIM_MAX])
    members = pipelined(c, commands, window=len(commands))[-1][0::2]
    if not members:
        return members
    leased = ['ZADD', k['inflight']]
    for m in members:
        leased.extend((lease, m))
    _, values, _ = pipelined(c, [['ZREM', k['due']] + members, ['HMGET', k['msg']] + members, leased], window=3)
    assert all(v is not None for v in values)
    return members


def run(variant, seed):
    """Returns Redis CPU per record (us) of scheduling N records, and of claiming and acking them all."""
    k = KEYS
    proc, c = h.start_shard()
    try:
        shas = {name: h.load(c, 'current_%s.lua' % name) for name in ('schedule', 'claim', 'ack')}
        sec, usec = c.call('TIME')
        now = int(sec) * 1000 + int(usec) // 1000
        msgs = h.past_due_messages(N, now, random.Random(seed))

        before = cpu(c)
        pipelined(c, schedule_commands(variant, shas['schedule'], msgs), window=8 if variant == 'scripts' else 16)
        schedule_us = (cpu(c) - before) / N * 1e6
        assert c.call('ZCARD', k['due']) == N

        lease = b'%d' % (now + LEASE)
        claimed, previous = 0, None
        before = cpu(c)
        while True:
            members = claim_and_ack(variant, c, shas['claim'], shas['ack'], previous, lease)
            if not members:
                break
            claimed += len(members)
            previous = members
        cycle_us = (cpu(c) - before) / N * 1e6
        assert claimed == N, claimed
        assert c.call('HLEN', k['msg']) == 0 and c.call('ZCARD', k['inflight']) == 0
        return schedule_us, cycle_us
    finally:
        proc.kill()
        proc.wait()


h.alternate(run, ('scripts', 'bare'), int(os.environ.get('REPS', 4)))
