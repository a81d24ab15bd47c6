// A scenario's history per UTC day as two charts: how long it took (p50 and p95), and how its results ended
// (passed first time, flaky, failed). Both read the answer's `by_day`; days are UTC as the service counts them.
import { useMemo } from 'preact/hooks';
import uPlot from 'uplot';
import type { ScenarioHistory } from '../../api/types.js';
import { Chart, type ChartOptions } from '../chart.js';
import { duration } from '../ui.js';

type Day = ScenarioHistory['by_day'][number];

const DAY_S = 86_400;
/** The colours of app.css (--ok, --bad, --accent), which a canvas cannot read from the stylesheet. */
const COLOURS = { ok: '#1e7a3c', bad: '#b3261e', flaky: '#d99a00', p50: '#1b5fc1', p95: '#7a3fb0' };

const dayOf = (d: Day) => Date.parse(`${d.day}T00:00:00Z`) / 1000;

/** Half a day either side, so one day is a point or a bar in the middle rather than a chart with no width. */
const padded: uPlot.Range.Function = (_u, min, max) => [min - DAY_S / 2, max + DAY_S / 2];

const dayAxis: uPlot.Axis = {
  // Whole days only: the points are days, and an hour between them would say nothing.
  incrs: [DAY_S, 2 * DAY_S, 7 * DAY_S, 14 * DAY_S, 30 * DAY_S, 91 * DAY_S, 365 * DAY_S],
  values: (_u, splits) => splits.map((s) => new Date(s * 1000).toISOString().slice(5, 10)),
};

const common = (y: uPlot.Scale): Pick<ChartOptions, 'scales' | 'cursor' | 'tzDate'> => ({
  scales: { x: { time: true, range: padded }, y },
  cursor: { drag: { x: false, y: false } },
  tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
});

const durationOptions: ChartOptions = {
  ...common({ range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] }),
  series: [
    { label: 'day (UTC)', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toISOString().slice(0, 10)) },
    { label: 'p50', stroke: COLOURS.p50, width: 2, points: { show: true, size: 6 }, value: (_u, v) => (v == null ? '—' : duration(v)) },
    { label: 'p95', stroke: COLOURS.p95, width: 2, dash: [6, 4], points: { show: true, size: 6 }, value: (_u, v) => (v == null ? '—' : duration(v)) },
  ],
  axes: [dayAxis, { values: (_u, splits) => splits.map((v) => duration(v)), size: 70 }],
};

/**
 * Stacked by drawing over: the day's results (red), its passes over them (green), its flaky passes over
 * those (amber), so what shows of each colour is failed, passed first time and flaky. The legend gives each
 * part's own count, worked back from the tops.
 */
const bars = uPlot.paths.bars!({ size: [0.6, 48] });
const part = (k: 'failed' | 'passed' | 'flaky') => (u: uPlot, _v: number | null, _s: number, i: number | null) => {
  if (i == null) return '—';
  const [, total, passed, flaky] = u.data as number[][];
  const n = k === 'failed' ? total![i]! - passed![i]! : k === 'passed' ? passed![i]! - flaky![i]! : flaky![i]!;
  return String(n);
};
const outcomeOptions: ChartOptions = {
  ...common({ range: (_u, _min, max) => [0, Math.max(1, max)] }),
  series: [
    { label: 'day (UTC)', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toISOString().slice(0, 10)) },
    { label: 'failed', stroke: COLOURS.bad, fill: COLOURS.bad, paths: bars, points: { show: false }, value: part('failed') },
    { label: 'passed', stroke: COLOURS.ok, fill: COLOURS.ok, paths: bars, points: { show: false }, value: part('passed') },
    { label: 'flaky', stroke: COLOURS.flaky, fill: COLOURS.flaky, paths: bars, points: { show: false }, value: part('flaky') },
  ],
  axes: [dayAxis, { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500], values: (_u, splits) => splits.map(String) }],
};

export function HistoryCharts({ days }: { days: Day[] }) {
  const x = useMemo(() => days.map(dayOf), [days]);
  const durations = useMemo<uPlot.AlignedData>(() => [x, days.map((d) => d.p50), days.map((d) => d.p95)], [x, days]);
  const outcomes = useMemo<uPlot.AlignedData>(() => [x, days.map((d) => d.results), days.map((d) => d.passed), days.map((d) => d.flaky)], [x, days]);
  if (days.length === 0) return null;
  return (
    <div class="charts">
      <Chart title="Duration per day (p50, p95)" options={durationOptions} data={durations} />
      <Chart title="Results per day" options={outcomeOptions} data={outcomes} />
    </div>
  );
}
