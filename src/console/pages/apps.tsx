// Apps, their deployments and invocations, and the event stream (build logs, output, states) of either.
import { useState } from 'preact/hooks';
import { seg } from '../api.js';
import { useStream } from '../stream.js';
import { ErrorBox, ListSection, when, type Column } from '../ui.js';

// The fields shown here; the wire types of apps are not among the shared ones (src/api/types.ts).
interface App {
  id: string;
  app_name: string;
  version: string;
  actions: { name: string }[];
  deployment: string;
}
interface Deployment {
  id: string;
  app_name?: string;
  version?: string;
  status: string;
  status_reason?: string;
  created_at: string;
}
interface Invocation {
  id: string;
  app_name: string;
  action_name: string;
  status: string;
  status_reason?: string;
  started_at: string;
  finished_at?: string | null;
}
interface EventFrame {
  event: string;
  timestamp?: string;
  message?: string;
  [field: string]: unknown;
}

export function AppsPage() {
  const [open, setOpen] = useState<{ kind: 'deployments' | 'invocations'; id: string }>();
  const logsButton = (kind: 'deployments' | 'invocations', id: string) => (
    <button type="button" class="link" onClick={() => setOpen({ kind, id })}>
      logs
    </button>
  );
  const apps: Column<App>[] = [
    { title: 'App', cell: (a) => a.app_name },
    { title: 'Version', cell: (a) => a.version },
    { title: 'Actions', cell: (a) => a.actions.map((x) => x.name).join(', ') },
    { title: 'Deployment', cell: (a) => a.deployment },
  ];
  const deployments: Column<Deployment>[] = [
    { title: 'Deployment', cell: (d) => d.id },
    { title: 'App', cell: (d) => `${d.app_name ?? ''} ${d.version ?? ''}` },
    { title: 'Status', cell: (d) => <span title={d.status_reason ?? ''}>{d.status}</span> },
    { title: 'Created', cell: (d) => when(d.created_at) },
    { title: '', cell: (d) => logsButton('deployments', d.id) },
  ];
  const invocations: Column<Invocation>[] = [
    { title: 'Invocation', cell: (i) => i.id },
    { title: 'Action', cell: (i) => `${i.app_name} / ${i.action_name}` },
    { title: 'Status', cell: (i) => <span title={i.status_reason ?? ''}>{i.status}</span> },
    { title: 'Started', cell: (i) => when(i.started_at) },
    { title: 'Finished', cell: (i) => when(i.finished_at) },
    { title: '', cell: (i) => logsButton('invocations', i.id) },
  ];
  return (
    <>
      <ListSection title="Apps" path="/apps" columns={apps} newestFirst rowKey={(a) => a.id} empty="No apps deployed." />
      <ListSection title="Deployments" path="/deployments" columns={deployments} newestFirst rowKey={(d) => d.id} empty="No deployments." />
      <ListSection title="Invocations" path="/invocations" columns={invocations} newestFirst rowKey={(i) => i.id} empty="No invocations." />
      {open && <EventLog key={`${open.kind}/${open.id}`} path={`/${open.kind}/${seg(open.id)}/events`} title={`Logs of ${open.id}`} />}
    </>
  );
}

export function EventLog({ path, title }: { path: string; title: string }) {
  const { frames, error, ended } = useStream<EventFrame>(path, 2000);
  const lines = frames
    .filter((f) => f.event !== 'sse_heartbeat')
    .map((f) => {
      const { event, timestamp, message, ...rest } = f;
      // A state event carries the whole resource: its status says what changed.
      const state = Object.values(rest).find((v): v is { status: string; status_reason?: string } => typeof (v as { status?: unknown } | null)?.status === 'string');
      const text = message ?? (state ? `${state.status}${state.status_reason ? `: ${state.status_reason}` : ''}` : JSON.stringify(rest));
      return `${timestamp ?? ''}  ${event}  ${text}`;
    });
  return (
    <section class="logs">
      <h3>
        {title} {ended ? <span class="muted">(ended)</span> : <span class="status ok">following</span>}
      </h3>
      <ErrorBox error={error} />
      <pre class="log">{lines.join('\n') || 'No events yet.'}</pre>
    </section>
  );
}

