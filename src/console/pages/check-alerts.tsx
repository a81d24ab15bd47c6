// The alerts a check raised, newest first: what kind, when, whether a maintenance window muted it, the run
// that raised it, and how each channel took it (delivered, or the error after its attempts).
import type { MonitorAlertRecord, MonitorCheckState } from '../../api/types.js';
import { href } from '../router.js';
import { ErrorBox, Table, useLoad, when, type Column } from '../ui.js';

type Delivery = MonitorAlertRecord['deliveries'][number];

/** The newest alerts are what matter; older ones are in `bcs monitor alerts`. */
const LIMIT = 50;

export function CheckAlerts({ check, pollMs }: { check: MonitorCheckState; pollMs: number }) {
  const path = `/monitors/alerts?${new URLSearchParams({ check_id: check.id, limit: String(LIMIT) })}`;
  const { data, error } = useLoad((api) => api.get<MonitorAlertRecord[]>(path), path, pollMs);
  return (
    <section class="check-alerts">
      <h3>Alerts</h3>
      <ErrorBox error={error} />
      <Table rows={data} columns={columns} rowKey={(a) => a.id} empty="No alerts raised." />
    </section>
  );
}

const columns: Column<MonitorAlertRecord>[] = [
  { title: 'When', cell: (a) => when(a.at) },
  { title: 'Kind', cell: (a) => <span class={`badge alert-${a.kind}`}>{a.kind}</span> },
  { title: 'Muted', cell: (a) => (a.muted ? <span title="raised in a maintenance window: recorded, not sent">muted</span> : 'no') },
  { title: 'Run', cell: (a) => (a.run_id ? <a href={href('runs', a.run_id)}>{a.run_id}</a> : '') },
  { title: 'Deliveries', cell: (a) => <Deliveries alert={a} /> },
];

function Deliveries({ alert: a }: { alert: MonitorAlertRecord }) {
  // A muted alert went to no channel; an alert of a check without channels is only recorded.
  if (a.deliveries.length === 0) return <span class="muted">{a.muted ? 'not sent' : 'no channels'}</span>;
  return (
    <ul class="deliveries">
      {a.deliveries.map((d) => (
        <li key={d.channel} data-channel={d.channel} class={d.ok ? 'ok' : 'failed'}>
          <b>{d.channel}</b> {d.ok ? 'delivered' : 'failed'} <span class="muted">({attempts(d)})</span>
          {d.error && <span class="delivery-error">: {d.error}</span>}
        </li>
      ))}
    </ul>
  );
}

const attempts = (d: Delivery) => `${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`;
