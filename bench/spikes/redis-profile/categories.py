#!/usr/bin/env python3
"""Sum a flat perf report of redis-server (`perf report --no-children --sort symbol --stdio -g none`, on stdin) into
the categories docs/benchmarks.md quotes. Unresolved addresses in redis-server are the statically linked Lua
interpreter (Debian's build has no symbols for it)."""
import collections
import re
import sys

CATEGORIES = [
    ('kernel', lambda s, k: k),
    ('Lua interpreter', lambda s, k: s.startswith('0x') or s.startswith('lua')),
    ('malloc/free', lambda s, k: re.match(r'(zmalloc|zfree|malloc|free|malloc_usable_size|zrealloc|je_|_int_|realloc|'
                                          r'calloc|zcalloc|cfree|tcache)', s)),
    ('copies/compares (memmove, memcmp, sds)', lambda s, k: re.match(r'(__mem|sds|_sds|memcpy|memcmp)', s)),
    ('dict', lambda s, k: re.match(r'(dict|siphash|_dict)', s)),
    ('skiplist', lambda s, k: s.startswith('zsl')),
    ('listpack', lambda s, k: s.startswith('lp') or s.startswith('zzl')),
    ('number formatting/parsing', lambda s, k: re.search(r'(strtod|printf_fp|hack_digit|str_to_mpn|mpn_|ull2string|'
                                                         r'ld2string|d2string|string2|ll2string|fpconv|vfprintf|'
                                                         r'__printf|snprintf|round_and_return)', s)),
    ('AOF', lambda s, k: 'AppendOnly' in s or 'aof' in s.lower()),
    ('objects/replies/parsing', lambda s, k: re.search(r'(Object|addReply|processMultibulk|RefCount|Reply|'
                                                       r'processInputBuffer|lookupKey)', s)),
]

totals = collections.Counter()
for line in sys.stdin:
    m = re.match(r'\s+([\d.]+)%\s+\[(.)\]\s+(\S+)', line)
    if not m:
        continue
    share, kind, symbol = float(m.group(1)), m.group(2), m.group(3)
    name = next((n for n, test in CATEGORIES if test(symbol, kind == 'k')), 'other')
    totals[name] += share
for name in [n for n, _ in CATEGORIES] + ['other']:
    print('%-42s %5.1f %%' % (name, totals[name]))
