#!/usr/bin/env python3
"""Spike: CPU and memory of the current Redis layout vs bucket layouts A and B (default ids only).

Starts its own redis-server per run (fresh, appendonly no), loads the scripts of one variant, then:
  1. (optional) schedules a backlog of not-due messages (due in ~1 day), offsets 0..B-1
  2. schedules N messages, offsets B..B+N-1, in batches of 250, due times random in [t0-W, t0)  (phase "schedule")
  3. measures memory per pending message, checks a re-read batch is DUPLICATE
  4. claim(max 400, lookahead 0) + ack in a loop until nothing is due                           (phase "cycle")
     each cycle pipelines: ack(previous claim), INFO commandstats, claim, INFO commandstats, so claim and ack
     costs can be told apart; INFO's own cost is subtracted from the CPU figures.
  5. correctness: every message claimed once, (due, offset) non-decreasing, values intact, in-flight re-read is
     DUPLICATE, the keys left are the expected ones, backlog buckets never read by a claim (A/B).

Usage: python3 harness.py [--reps 3] [--backlogs 0,1000000] [--variants current,A,B] [--n 200000] [--order random]
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The bridge's own scripts, read where the bridge keeps them (the variant "current"); A and B are next to this file.
# $BRIDGE_LUA: another directory of the bridge's scripts (e.g. an older version's, to compare with)
BRIDGE_LUA = os.environ.get('BRIDGE_LUA') or os.path.normpath(os.path.join(
    HERE, '..', '..', '..', 'bridge', 'src', 'main', 'resources', 'io', 'delaybridge', 'bridge', 'store', 'redis', 'lua'))
# A redis-server: $REDIS_SERVER, else one on the PATH (apt-get install redis-server), else the Redis 6.2 binary the
# test kit extracts when the tests or ./bench.sh first run.
REDIS = (os.environ.get('REDIS_SERVER') or shutil.which('redis-server')
         or '/tmp/delay-bridge-redis-root/redis-server-6.2.6-v5-linux-amd64-b855641')
P = b'db:{t:0}:'  # one shard's key prefix (hash tag = topic:shard)
INC = b'inc-spike-1'
EPOCH = b'1'
CHANNEL = P + b'wake'
HEADER = b'\x00'  # empty origin token: default id, origin = the record it names
VALUE_LEN = 240   # stored value = header + 239 bytes of envelope
SCHED_BATCH = 250
CLAIM_MAX = 400
LEASE = 600000
WINDOW = 100000   # ms: N=200k random due times over 100k ms -> many equal due times (ties by offset)


class RedisError(Exception):
    pass


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(('127.0.0.1', port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b''
        self.pos = 0

    @staticmethod
    def encode(args):
        out = [b'*%d\r\n' % len(args)]
        for a in args:
            if isinstance(a, int):
                a = b'%d' % a
            elif isinstance(a, str):
                a = a.encode()
            out.append(b'$%d\r\n' % len(a))
            out.append(a)
            out.append(b'\r\n')
        return b''.join(out)

    def send(self, *cmds):
        self.s.sendall(b''.join(self.encode(c) for c in cmds))

    def _fill(self):
        data = self.s.recv(4 << 20)
        if not data:
            raise ConnectionError('redis closed the connection')
        self.buf = self.buf[self.pos:] + data
        self.pos = 0

    def _line(self):
        while True:
            i = self.buf.find(b'\r\n', self.pos)
            if i >= 0:
                line = self.buf[self.pos:i]
                self.pos = i + 2
                return line
            self._fill()

    def read(self):
        line = self._line()
        t = line[0]
        if t == 36:  # $
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) - self.pos < n + 2:
                self._fill()
            v = self.buf[self.pos:self.pos + n]
            self.pos += n + 2
            return v
        if t == 42:  # *
            n = int(line[1:])
            if n < 0:
                return None
            return [self.read() for _ in range(n)]
        if t == 58:  # :
            return int(line[1:])
        if t == 43:  # +
            return line[1:]
        if t == 45:  # -
            return RedisError(line[1:].decode())
        raise ValueError('bad reply %r' % line[:50])

    def call(self, *args):
        self.send(args)
        r = self.read()
        if isinstance(r, RedisError):
            raise r
        return r


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_redis(packed):
    port = free_port()
    args = [REDIS, '--port', str(port), '--save', '', '--appendonly', 'no', '--daemonize', 'no',
            '--bind', '127.0.0.1', '--loglevel', 'warning']
    if packed:
        args += ['--hash-max-ziplist-value', '1024', '--zset-max-ziplist-value', '1024']
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd='/tmp')
    for _ in range(200):
        try:
            c = Conn(port)
            c.call('PING')
            return proc, c
        except (ConnectionError, OSError):
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError('redis did not start')


def info(conn, section):
    raw = conn.call('INFO', section).decode()
    out = {}
    for line in raw.splitlines():
        if ':' in line and not line.startswith('#'):
            k, v = line.split(':', 1)
            out[k] = v
    return out


def parse_cmdstats(raw):
    stats = {}
    for line in raw.decode().splitlines():
        if line.startswith('cmdstat_'):
            name, rest = line[8:].split(':', 1)
            kv = dict(x.split('=') for x in rest.split(','))
            stats[name] = (int(kv['calls']), int(kv['usec']))
    return stats


def diff_stats(a, b):
    d = {}
    for k, (calls, usec) in b.items():
        c0, u0 = a.get(k, (0, 0))
        if calls != c0:
            d[k] = (calls - c0, usec - u0)
    return d


def add_stats(acc, d):
    for k, (c, u) in d.items():
        c0, u0 = acc.get(k, (0, 0))
        acc[k] = (c0 + c, u0 + u)


def cpu(conn):
    i = info(conn, 'cpu')
    return float(i['used_cpu_sys']) + float(i['used_cpu_user'])


def load(conn, name):
    path = (os.path.join(BRIDGE_LUA, name[len('current_'):]) if name.startswith('current_')
            else os.path.join(HERE, name))
    with open(path) as f:
        return conn.call('SCRIPT', 'LOAD', f.read())


# ---------------------------------------------------------------- variants: how to call each layout's scripts

class Current:
    name = 'current'
    packed = False

    def __init__(self, conn):
        self.sched, self.claim_sha, self.ack_sha = (load(conn, 'current_%s.lua' % op) for op in ('schedule', 'claim', 'ack'))
        self.keys = {k: P + k.encode() for k in ('due', 'msg', 'inflight', 'attempts', 'inc', 'cancelled', 'epoch')}

    def schedule(self, msgs):
        k = self.keys
        args = ['EVALSHA', self.sched, 6, k['due'], k['msg'], k['inflight'], k['attempts'], k['inc'], k['cancelled'],
                CHANNEL, INC, b'delay-intake/0', b'PUBLISH']
        for m in msgs:
            args.extend(m)
        return args

    def claim(self):
        k = self.keys
        return ['EVALSHA', self.claim_sha, 5, k['due'], k['msg'], k['inflight'], k['attempts'], k['epoch'],
                EPOCH, CLAIM_MAX, LEASE, 0]

    def ack(self, members):
        k = self.keys
        return ['EVALSHA', self.ack_sha, 5, k['inflight'], k['msg'], k['attempts'], k['epoch'], k['due'], EPOCH] + members


class LayoutA:
    name = 'A'
    packed = True
    prefix = 'a'

    def __init__(self, conn):
        p = self.prefix
        self.sched, self.claim_sha, self.ack_sha = (load(conn, '%s_%s.lua' % (p, op)) for op in ('schedule', 'claim', 'ack'))
        self.idx, self.inflight, self.inc, self.epoch, self.ifmsg = (P + x for x in (b'dueidx', b'inflight', b'inc', b'epoch', b'ifmsg'))

    def schedule(self, msgs):
        args = ['EVALSHA', self.sched, 2, self.idx, self.inc, CHANNEL, INC, P]
        for m in msgs:
            args.extend(m)
        return args

    def claim(self):
        return ['EVALSHA', self.claim_sha, 3, self.idx, self.inflight, self.epoch, EPOCH, CLAIM_MAX, LEASE, 0, P]

    def ack(self, members):
        return ['EVALSHA', self.ack_sha, 2, self.inflight, self.epoch, EPOCH, P] + members


class LayoutB(LayoutA):
    name = 'B'
    prefix = 'b'

    def schedule(self, msgs):
        args = ['EVALSHA', self.sched, 3, self.idx, self.inc, self.ifmsg, CHANNEL, INC, P]
        for m in msgs:
            args.extend(m)
        return args

    def claim(self):
        return ['EVALSHA', self.claim_sha, 4, self.idx, self.inflight, self.epoch, self.ifmsg,
                EPOCH, CLAIM_MAX, LEASE, 0, P]

    def ack(self, members):
        return ['EVALSHA', self.ack_sha, 3, self.inflight, self.ifmsg, self.epoch, EPOCH] + members


VARIANTS = {'current': Current, 'A': LayoutA, 'B': LayoutB}


def pipelined(conn, commands, window=8):
    """Send commands keeping at most `window` unanswered; return the replies in order."""
    replies = []
    sent = 0
    for cmd in commands:
        conn.send(cmd)
        sent += 1
        if sent - len(replies) >= window:
            replies.append(conn.read())
    while len(replies) < sent:
        replies.append(conn.read())
    for r in replies:
        if isinstance(r, RedisError):
            raise r
    return replies


def schedule_all(conn, v, gen, count, expect_code=1):
    def commands():
        batch = []
        for i in range(count):
            batch.append(gen(i))
            if len(batch) == SCHED_BATCH:
                yield v.schedule(batch)
                batch = []
        if batch:
            yield v.schedule(batch)
    replies = pipelined(conn, commands())
    for r in replies:
        codes = r[:-1]
        if any(c != expect_code for c in codes):
            raise AssertionError('schedule codes %r, expected all %d' % (sorted(set(codes)), expect_code))
    return len(replies)


def run(variant_name, n, backlog, order, seed, pin=False):
    import random
    rnd = random.Random(seed)
    V = VARIANTS[variant_name]
    proc, conn = start_redis(V.packed)
    res = {'variant': variant_name, 'n': n, 'backlog': backlog, 'order': order, 'pin': pin}
    try:
        v = V(conn)
        conn.call('SET', P + b'inc', INC)
        conn.call('SET', P + b'epoch', EPOCH)
        if pin:
            # keep the in-flight structures out of the packed encoding for good: a member / field longer than
            # *-max-ziplist-value converts the key once, and Redis never converts back while the key exists
            conn.call('ZADD', P + b'inflight', '+inf', b'~pin' + b'x' * 1100)
            if variant_name == 'B':
                conn.call('HSET', P + b'ifmsg', b'~pin', b'x' * 1100)
        sec, usec = conn.call('TIME')
        t0 = int(sec) * 1000 + int(usec) // 1000
        mem0 = info(conn, 'memory')

        # backlog: offsets 0..backlog-1, due in ~1 day (never due during the run)
        if backlog:
            pool = os.urandom(1 << 20)
            span = len(pool) - VALUE_LEN

            def gen_backlog(i):
                j = (i * 7919) % span
                return (struct.pack('>Q', i), b'%d' % (t0 + 86400000 + rnd.randrange(3600000)), HEADER,
                        HEADER + pool[j:j + VALUE_LEN - 1], b'%d' % t0)
            t = time.time()
            schedule_all(conn, v, gen_backlog, backlog)
            res['backlog_setup_s'] = round(time.time() - t, 2)
        backlog_done = time.time()

        # the cycled messages: offsets backlog..backlog+n-1
        env = os.urandom(n * (VALUE_LEN - 1))
        if order == 'random':
            dues = [t0 - WINDOW + rnd.randrange(WINDOW) for _ in range(n)]
        else:  # due order = offset order (one fixed delay)
            dues = [t0 - WINDOW + (i * WINDOW) // n for i in range(n)]

        def value(i):
            return HEADER + env[i * (VALUE_LEN - 1):(i + 1) * (VALUE_LEN - 1)]

        def gen(i):
            return (struct.pack('>Q', backlog + i), b'%d' % dues[i], HEADER, value(i), b'%d' % t0)

        s0, c0, w0 = parse_cmdstats(conn.call('INFO', 'commandstats')), cpu(conn), time.time()
        calls = schedule_all(conn, v, gen, n)
        w1, c1, s1 = time.time(), cpu(conn), parse_cmdstats(conn.call('INFO', 'commandstats'))
        d = diff_stats(s0, s1)
        res['schedule'] = {'wall_s': w1 - w0, 'cpu_s': c1 - c0 - d.get('info', (0, 0))[1] / 1e6, 'calls': calls,
                           'stats': {k: x for k, x in d.items() if k != 'info'}}

        mem1 = info(conn, 'memory')
        pending = n + backlog
        res['mem_per_msg'] = (int(mem1['used_memory']) - int(mem0['used_memory'])) / pending
        res['dataset_per_msg'] = (int(mem1['used_memory_dataset']) - int(mem0['used_memory_dataset'])) / pending
        res['rss_per_msg'] = (int(mem1['used_memory_rss']) - int(mem0['used_memory_rss'])) / pending

        # a re-read of pending records is DUPLICATE (outside the measured phases)
        r = conn.call(*v.schedule([gen(i) for i in range(1000, 1000 + SCHED_BATCH)]))
        assert all(c == 3 for c in r[:-1]), ('pending re-read', set(r[:-1]))

        # cycle: claim + ack until nothing is due
        claimed = []  # (due, offset)
        claim_stats, ack_stats = {}, {}
        prev = None
        batches = []
        s_last = parse_cmdstats(conn.call('INFO', 'commandstats'))
        c0, w0 = cpu(conn), time.time()
        while True:
            cmds = []
            if prev:
                cmds.append(v.ack(prev))
            cmds += [['INFO', 'commandstats'], v.claim(), ['INFO', 'commandstats']]
            conn.send(*cmds)
            if prev:
                acked = conn.read()
                assert acked == len(prev), ('ack', acked, len(prev))
            s_mid = parse_cmdstats(conn.read())
            reply = conn.read()
            s_end = parse_cmdstats(conn.read())
            if isinstance(reply, RedisError):
                raise reply
            if prev:
                add_stats(ack_stats, diff_stats(s_last, s_mid))
            add_stats(claim_stats, diff_stats(s_mid, s_end))
            s_last = s_end
            k = len(reply) - 3
            assert k % 4 == 0 and reply[2] == 0, ('claim reply', reply[:3])
            members = reply[3::4]
            for j in range(k // 4):
                m, due, val = reply[3 + 4 * j], reply[4 + 4 * j], reply[6 + 4 * j]
                off = struct.unpack('>Q', m)[0]
                i = off - backlog
                assert 0 <= i < n, ('claimed a backlog or unknown offset', off)
                assert due == dues[i], ('due', off, due, dues[i])
                assert val == value(i), ('value', off)
                claimed.append((due, off))
            batches.append(k // 4)
            prev = members
            if not members:
                break
        w1, c1 = time.time(), cpu(conn)
        final = parse_cmdstats(conn.call('INFO', 'commandstats'))
        for st in (claim_stats, ack_stats):
            st.pop('info', None)
        cycle_info_usec = sum(u for k2, (c, u) in diff_stats(s1, final).items() if k2 == 'info')
        res['cycle'] = {'wall_s': w1 - w0, 'cpu_s': c1 - c0 - cycle_info_usec / 1e6, 'claims': len(batches),
                        'short_claims': sum(1 for b in batches[:-2] if b < CLAIM_MAX),
                        'claim_stats': claim_stats, 'ack_stats': ack_stats}

        # correctness
        assert len(claimed) == n, ('claimed', len(claimed), n)
        assert len(set(o for _, o in claimed)) == n, 'a message was claimed twice'
        assert all(claimed[j] <= claimed[j + 1] for j in range(n - 1)), 'claims not in (due, offset) order'

        # a re-read of messages in flight is DUPLICATE; then ack them
        base = backlog + n + 1000
        sec, usec = conn.call('TIME')
        now = int(sec) * 1000 + int(usec) // 1000
        fresh = [(struct.pack('>Q', base + i), b'%d' % (now - 1), HEADER, HEADER + b'x' * (VALUE_LEN - 1), b'1')
                 for i in range(10)]
        r = conn.call(*v.schedule(fresh))
        assert all(c == 1 for c in r[:-1]), r
        r = conn.call(*v.claim())
        got = r[3::4]
        assert sorted(got) == sorted(f[0] for f in fresh), ('fresh claim', len(got))
        r = conn.call(*v.schedule(fresh))
        assert all(c == 3 for c in r[:-1]), ('in-flight re-read', r)
        assert conn.call(*v.ack(got)) == 10
        assert conn.call(*v.ack(got)) == 0  # acked twice: nothing left to delete

        # keys left
        keys = set(conn.call('KEYS', '*'))
        expected = {P + b'inc', P + b'epoch'}
        if pin:
            expected |= {P + b'inflight'} | ({P + b'ifmsg'} if variant_name == 'B' else set())
        if backlog:
            if variant_name == 'current':
                expected |= {P + b'due', P + b'msg'}
                assert conn.call('ZCARD', P + b'due') == backlog and conn.call('HLEN', P + b'msg') == backlog
            else:
                nb = (backlog + 127) // 128
                buckets = [struct.pack('>Q', 128 * b) for b in range(nb)]
                expected.add(P + b'dueidx')
                dkeys = [P + b'd:' + b for b in buckets]
                expected |= set(dkeys)
                if variant_name == 'A':
                    expected |= {P + b'm:' + b for b in buckets}
                assert conn.call('ZCARD', P + b'dueidx') == nb
                # no claim read a backlog bucket: their LRU idle time covers the whole run since they were written
                # (the last backlog bucket also holds cycled offsets when backlog is not a multiple of 128)
                pure = [P + b'd:' + struct.pack('>Q', 128 * b) for b in range(backlog // 128)]
                idle = pipelined(conn, (['OBJECT', 'IDLETIME', k] for k in pure), window=1000)
                since = time.time() - backlog_done
                res['backlog_min_idle_s'] = min(idle)
                res['since_backlog_s'] = round(since, 1)
                assert min(idle) >= int(since) - 1, ('a backlog bucket was read', min(idle), since)
                # (after the idle check: ZCARD touches a key's LRU clock)
                cards = pipelined(conn, (['ZCARD', k] for k in dkeys), window=1000)
                assert sum(cards) == backlog
        assert keys == expected, ('keys left', sorted(keys - expected)[:5], sorted(expected - keys)[:5])
        res['ok'] = True
    finally:
        try:
            conn.s.close()
        except OSError:
            pass
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return res


INNER_SKIP = ('evalsha', 'info')


def summarize(res):
    """Per record (n) figures of one run."""
    n = res['n']
    sch = res['schedule']['stats']
    cl, ak = res['cycle']['claim_stats'], res['cycle']['ack_stats']
    allst = {}
    for st in (sch, cl, ak):
        add_stats(allst, st)
    ev = allst.get('evalsha', (0, 0))[1]
    inner = sum(u for k, (c, u) in allst.items() if k not in INNER_SKIP)
    out = {
        'cpu_us': (res['schedule']['cpu_s'] + res['cycle']['cpu_s']) * 1e6 / n,
        'cpu_sched_us': res['schedule']['cpu_s'] * 1e6 / n,
        'cpu_cycle_us': res['cycle']['cpu_s'] * 1e6 / n,
        'evalsha_us': ev / n,
        'ev_sched_us': sch.get('evalsha', (0, 0))[1] / n,
        'ev_claim_us': cl.get('evalsha', (0, 0))[1] / n,
        'ev_ack_us': ak.get('evalsha', (0, 0))[1] / n,
        'inner_us': inner / n,
        'lua_us': (ev - inner) / n,
        'inner_calls': sum(c for k, (c, u) in allst.items() if k not in INNER_SKIP) / n,
        'mem_per_msg': res['mem_per_msg'],
        'dataset_per_msg': res['dataset_per_msg'],
        'wall_s': res['schedule']['wall_s'] + res['cycle']['wall_s'],
        'wall_sched_s': res['schedule']['wall_s'],
        'wall_cycle_s': res['cycle']['wall_s'],
        'claims': res['cycle']['claims'],
    }
    for k, (c, u) in allst.items():
        if k not in INNER_SKIP:
            out['cmd_' + k] = u / n
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=200000)
    ap.add_argument('--backlogs', default='0,1000000')
    ap.add_argument('--variants', default='current,A,B')
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--order', default='random', choices=('random', 'seq'))
    ap.add_argument('--pin', action='store_true', help='keep inflight (and B ifmsg) in hashtable/skiplist encoding')
    ap.add_argument('--out', default=os.path.join(HERE, 'results.jsonl'))
    a = ap.parse_args()
    rows = {}
    for backlog in [int(x) for x in a.backlogs.split(',')]:
        for rep in range(a.reps):
            for vn in a.variants.split(','):
                t = time.time()
                res = run(vn, a.n, backlog, a.order, seed=rep, pin=a.pin)
                s = summarize(res)
                res['summary'] = s
                with open(a.out, 'a') as f:
                    f.write(json.dumps(res, default=str) + '\n')
                rows.setdefault((vn, backlog), []).append(s)
                print('%-7s backlog=%-7d rep=%d  cpu %.2f us/rec (sched %.2f cycle %.2f)  evalsha %.2f  inner %.2f  lua %.2f  '
                      'mem %.0f B/msg  wall %.1f s  claims %d  [run %.0f s]' % (
                          vn, backlog, rep, s['cpu_us'], s['cpu_sched_us'], s['cpu_cycle_us'], s['evalsha_us'],
                          s['inner_us'], s['lua_us'], s['mem_per_msg'], s['wall_s'], s['claims'], time.time() - t),
                      flush=True)
    print('\nmedians (%s order, n=%d%s):' % (a.order, a.n, ', pinned in-flight encoding' if a.pin else ''))
    keys = ['cpu_us', 'cpu_sched_us', 'cpu_cycle_us', 'evalsha_us', 'ev_sched_us', 'ev_claim_us', 'ev_ack_us',
            'inner_us', 'lua_us', 'inner_calls', 'mem_per_msg', 'dataset_per_msg', 'wall_s', 'claims']
    for (vn, backlog), ss in rows.items():
        med = {k: statistics.median(s[k] for s in ss) for k in keys}
        cmds = sorted({k for s in ss for k in s if k.startswith('cmd_')})
        med_cmds = {k[4:]: round(statistics.median(s.get(k, 0) for s in ss), 3) for k in cmds}
        print(json.dumps({'variant': vn, 'backlog': backlog, **{k: round(x, 3) for k, x in med.items()},
                          'inner_cmds_us': med_cmds}))


def alternate(run, variants, reps):
    """Runs run(variant, rep) -> (schedule_us, cycle_us) `reps` times per variant, the order of the variants swapped
    every other repetition, prints each result, then each variant's medians; returns {variant: [results]}."""
    results = {v: [] for v in variants}
    for rep in range(reps):
        for variant in variants if rep % 2 == 0 else tuple(reversed(variants)):
            schedule_us, cycle_us = run(variant, rep)
            results[variant].append((schedule_us, cycle_us))
            print('%-7s schedule %.2f us/rec, claim+ack %.2f us/rec' % (variant, schedule_us, cycle_us), flush=True)
    for variant, runs in results.items():
        s = statistics.median(r[0] for r in runs)
        ca = statistics.median(r[1] for r in runs)
        print('%-7s median schedule %.2f + claim+ack %.2f = %.2f us of Redis CPU a record' % (variant, s, ca, s + ca))
    return results


def start_shard():
    """A fresh redis-server (appendonly no) holding one shard's incarnation and epoch: returns (process, conn)."""
    proc, conn = start_redis(False)
    conn.call('SET', P + b'inc', INC)
    conn.call('SET', P + b'epoch', EPOCH)
    return proc, conn


def past_due_messages(n, now, rnd):
    """n schedules of default ids (offsets 0..n-1), stored values of VALUE_LEN bytes, due at random in the 100 s
    before now: (member, due, header, value, timestamp) as schedule.lua takes them."""
    return [(struct.pack('>q', i), b'%d' % (now - 100000 + rnd.randrange(100000)), HEADER,
             HEADER + os.urandom(VALUE_LEN - 1), b'') for i in range(n)]


if __name__ == '__main__':
    main()
