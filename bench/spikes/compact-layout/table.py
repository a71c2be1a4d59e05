#!/usr/bin/env python3
"""Medians of harness.py results as markdown: python3 table.py results.jsonl [more.jsonl ...]"""
import json
import statistics
import sys

rows = {}
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        key = (r['order'], r.get('pin', False), r['backlog'], r['variant'])
        rows.setdefault(key, []).append(r)

VORDER = {'current': 0, 'A': 1, 'B': 2}


def med(xs):
    return statistics.median(xs)


print('| order | in-flight pinned | backlog | variant | runs | Redis CPU us/rec [min-max] (sched + cycle) | evalsha us/rec '
      '(sched / claim / ack) | inner cmds us/rec | Lua overhead us/rec | inner calls/rec | used_memory B/pending msg | '
      'wall s (sched + cycle) |')
print('|' + '---|' * 12)
for key in sorted(rows, key=lambda k: (k[0], k[1], k[2], VORDER[k[3]])):
    rs = rows[key]
    s = [r['summary'] for r in rs]
    m = {k: med([x[k] for x in s]) for k in s[0] if not k.startswith('cmd_')}
    lo, hi = min(x['cpu_us'] for x in s), max(x['cpu_us'] for x in s)
    print('| %s | %s | %s | %s | %d | **%.1f** [%.0f-%.0f] (%.1f + %.1f) | **%.1f** (%.1f / %.1f / %.1f) | %.1f | **%.1f** | %.2f | %.0f | %.1f (%.1f + %.1f) |' % (
        key[0], 'yes' if key[1] else 'no', '{:,}'.format(key[2]), key[3], len(rs),
        m['cpu_us'], lo, hi, m['cpu_sched_us'], m['cpu_cycle_us'],
        m['evalsha_us'], m['ev_sched_us'], m['ev_claim_us'], m['ev_ack_us'],
        m['inner_us'], m['lua_us'], m['inner_calls'], m['mem_per_msg'],
        m['wall_s'], m['wall_sched_s'], m['wall_cycle_s']))

print()
print('Inner commands per operation, median us per record (calls per record):')
print()
for key in sorted(rows, key=lambda k: (k[0], k[1], k[2], VORDER[k[3]])):
    rs = rows[key]
    n = rs[0]['n']
    parts = []
    for op, get in (('schedule', lambda r: r['schedule']['stats']), ('claim', lambda r: r['cycle']['claim_stats']),
                    ('ack', lambda r: r['cycle']['ack_stats'])):
        cmds = sorted({c for r in rs for c in get(r) if c != 'evalsha'})
        vals = []
        for c in cmds:
            u = med([get(r).get(c, (0, 0))[1] / n for r in rs])
            k = med([get(r).get(c, (0, 0))[0] / n for r in rs])
            if u >= 0.05:
                vals.append((u, '%s %.2f (%.3g)' % (c.upper(), u, k)))
        vals.sort(reverse=True)
        parts.append('%s: %s' % (op, ', '.join(v for _, v in vals)))
    print('- %s order%s, backlog %s, **%s**: %s' % (key[0], ', pinned' if key[1] else '', '{:,}'.format(key[2]),
                                                    key[3], '; '.join(parts)))
