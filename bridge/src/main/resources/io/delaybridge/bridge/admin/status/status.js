// The status page: polls /status/summary and draws it. No build step; Chart.js comes from its WebJar.
'use strict';
const REFRESH_MS = 2000;
const LATENESS_POINTS = 150; // 5 minutes at one point per refresh
const fmt = new Intl.NumberFormat('en');

function ms(v) {
  if (v === null || v === undefined) return '–';
  if (v < 1000) return Math.round(v) + ' ms';
  if (v < 120000) return (v / 1000).toFixed(1) + ' s';
  return (v / 60000).toFixed(1) + ' min';
}

function text(id, value) { document.getElementById(id).textContent = value; }

// a series' schedule as its headers say it: "cron 0 9 * * * Europe/Berlin" or "every 1h"
function schedule(h) {
  return h['delay-cron'] ? 'cron ' + h['delay-cron'] + ' ' + h['delay-zone'] : 'every ' + h['delay-every'];
}

function rows(tableId, list, cells) {
  const body = document.querySelector('#' + tableId + ' tbody');
  body.replaceChildren(...list.map(item => {
    const tr = document.createElement('tr');
    for (const [value, cls] of cells(item)) {
      const td = document.createElement('td');
      td.textContent = value;
      if (cls) td.className = cls;
      tr.appendChild(td);
    }
    return tr;
  }));
}

const pendingChart = new Chart(document.getElementById('pendingChart'), {
  type: 'bar',
  data: { labels: [], datasets: [
    { label: 'pending (hot)', data: [], backgroundColor: '#1e88e5' },
    { label: 'far (counted by due hour)', data: [], backgroundColor: '#90caf9' } ] },
  options: { animation: false, responsive: true, maintainAspectRatio: false,
    scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } } }
});

const latenessChart = new Chart(document.getElementById('latenessChart'), {
  type: 'line',
  data: { labels: [], datasets: [
    { label: 'p50', data: [], borderColor: '#43a047', pointRadius: 0 },
    { label: 'p95', data: [], borderColor: '#fb8c00', pointRadius: 0 },
    { label: 'p99', data: [], borderColor: '#e53935', pointRadius: 0 } ] },
  options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { y: { beginAtZero: true } } }
});

async function refresh() {
  try {
    const response = await fetch('/status/summary', { cache: 'no-store' });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    const s = await response.json();
    render(s);
    text('updated', 'updated ' + new Date().toLocaleTimeString());
  } catch (e) {
    const badge = document.getElementById('health');
    badge.textContent = 'unreachable: ' + e.message;
    badge.className = 'badge bad';
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}

function render(s) {
  const checks = Object.entries(s.health);
  const healthy = checks.every(([, c]) => c.healthy);
  const badge = document.getElementById('health');
  badge.textContent = healthy ? 'healthy' : 'unhealthy: ' + checks.filter(([, c]) => !c.healthy).map(([n]) => n).join(', ');
  badge.className = 'badge ' + (healthy ? 'ok' : 'bad');
  text('build', s.version + ' (commit ' + s.commit + ')');
  text('pending', fmt.format(s.pending));
  text('inFlight', fmt.format(s.inFlight));
  text('far', fmt.format(s.far));
  text('overdue', ms(s.oldestOverdueMillis));
  const t = s.throughput;
  text('deliveredRate', t.delivered ? t.delivered.rate1m.toFixed(1) : '–');
  text('scheduledRate', t.scheduled ? t.scheduled.rate1m.toFixed(1) : '–');
  text('delivered', t.delivered ? fmt.format(t.delivered.count) : '–');
  const express = t['intake.express'], parked = t['intake.parked'];
  text('express', express && parked ? fmt.format(express.count) + ' / ' + fmt.format(parked.count) : '–');
  text('intakeLag', fmt.format(s.intakeLag));

  pendingChart.data.labels = s.pendingByDue.map(b => b.label);
  pendingChart.data.datasets[0].data = s.pendingByDue.map(b => b.count - b.far);
  pendingChart.data.datasets[1].data = s.pendingByDue.map(b => b.far);
  pendingChart.update();

  if (s.lateness) {
    const d = latenessChart.data;
    d.labels.push(new Date().toLocaleTimeString());
    d.datasets[0].data.push(s.lateness.p50);
    d.datasets[1].data.push(s.lateness.p95);
    d.datasets[2].data.push(s.lateness.p99);
    if (d.labels.length > LATENESS_POINTS) {
      d.labels.shift();
      d.datasets.forEach(ds => ds.data.shift());
    }
    latenessChart.update();
  }

  rows('shards', s.shards, sh => [
    [sh.shard, 'num'], [sh.owner || '(none)'], [fmt.format(sh.pending), 'num'], [fmt.format(sh.inFlight), 'num'],
    [fmt.format(sh.far), 'num'], [sh.nextDueAt ? new Date(sh.nextDueAt).toISOString() : '–'], [ms(sh.oldestOverdueMillis), 'num'],
    [sh.paused ? 'paused' : (sh.pumpedHere ? 'pumped here' : 'running')]]);
  // per target topic: its rate cap (pump.rateLimits), deliveries and lateness (recent), what the cap held back
  rows('targets', s.targets || [], g => [[g.target], [g.cap > 0 ? fmt.format(g.cap) : 'none', 'num'],
    [g.deliveredPerSecond === undefined ? '–' : g.deliveredPerSecond.toFixed(1), 'num'],
    [ms(g.latenessP50), 'num'], [ms(g.latenessP99), 'num'], [ms(g.latenessMax), 'num'],
    [g.waiting === undefined ? '–' : fmt.format(g.waiting), 'num'],
    [g.heldBack === undefined ? '–' : fmt.format(g.heldBack), 'num'],
    [g.handedBack === undefined ? '–' : fmt.format(g.handedBack), 'num']]);
  // series: counted among the earliest pending messages (complete: all of them), the next due, this instance's meters
  const sc = s.schedules || {};
  text('schedules', sc.count === undefined ? '–' : (sc.complete ? '' : 'at least ') + fmt.format(sc.count)
    + ' series; occurrences here: ' + fmt.format(sc.delivered) + ' delivered, ' + fmt.format(sc.missed)
    + ' missed, ' + fmt.format(sc.skipped) + ' skipped');
  rows('series', sc.next || [], r => [[r.id], [r.target], [schedule(r.schedule || {})], ['#' + r.pending.number, 'num'],
    [r.pending.dueAtIso], [r.lastDeliveredDueAtIso || '–'],
    [r.delivered === null || r.delivered === undefined ? '–' : fmt.format(r.delivered), 'num']]);
  rows('deadletters', Object.entries(s.deadlettered), ([reason, count]) => [[reason], [fmt.format(count), 'num']]);
  rows('rules', s.rules || [], r => [[r.name], [r.source], [r.action], [fmt.format(r.scheduled), 'num'],
    [fmt.format(r.cancelled), 'num'], [fmt.format(r.rejected), 'num'], [r.lag < 0 ? '–' : fmt.format(r.lag), 'num']]);
  rows('checks', checks, ([name, c]) => [[name], [c.healthy ? 'healthy' : 'unhealthy', c.healthy ? 'healthy' : 'unhealthy'],
    [c.message]]);
  document.body.dataset.loaded = 'true';
}

refresh();
