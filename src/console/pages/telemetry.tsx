// A session's telemetry, live and past, filtered by category; and its log streams.
import { useState } from 'preact/hooks';
import type { LogFrame, TelemetryCategory, TelemetryEnvelope } from '../../api/types.js';
import { seg } from '../api.js';
import { href } from '../router.js';
import { useStream } from '../stream.js';
import { ErrorBox, Section, Table, useLoad, type Column } from '../ui.js';

const CATEGORIES: TelemetryCategory[] = ['console', 'network', 'page', 'interaction', 'control', 'connection', 'system', 'captcha', 'screenshot', 'monitor'];

export function TelemetryPage({ sessionId }: { sessionId: string }) {
  const [shown, setShown] = useState<Set<TelemetryCategory>>(() => new Set(CATEGORIES));
  const toggle = (c: TelemetryCategory, on: boolean) =>
    setShown((s) => {
      const next = new Set(s);
      if (on) next.add(c);
      else next.delete(c);
      return next;
    });
  return (
    <Section title="Telemetry and logs" actions={<a href={href('sessions', sessionId)}>Back to the session</a>}>
      <fieldset class="categories">
        <legend>Categories</legend>
        {CATEGORIES.map((c) => (
          <label key={c}>
            <input type="checkbox" name={c} checked={shown.has(c)} onChange={(e) => toggle(c, e.currentTarget.checked)} /> {c}
          </label>
        ))}
      </fieldset>
      <LiveEvents sessionId={sessionId} shown={shown} />
      <History sessionId={sessionId} shown={shown} />
      <Logs sessionId={sessionId} />
    </Section>
  );
}

const columns: Column<TelemetryEnvelope>[] = [
  { title: 'Seq', cell: (e) => String(e.seq) },
  { title: 'Time', cell: (e) => new Date(e.event.ts / 1000).toLocaleTimeString() },
  { title: 'Category', cell: (e) => e.event.category },
  { title: 'Type', cell: (e) => e.event.type },
  { title: 'Data', cell: (e) => <code class="data">{e.event.data ? JSON.stringify(e.event.data) : ''}</code> },
];

function LiveEvents({ sessionId, shown }: { sessionId: string; shown: Set<TelemetryCategory> }) {
  // `replay=all` first sends what the session still holds, so the list is not empty until something happens.
  const { frames, error, ended } = useStream<TelemetryEnvelope>(`/browsers/${seg(sessionId)}/telemetry/stream?replay=all`);
  const rows = frames.filter((f) => f.event && shown.has(f.event.category)).reverse();
  return (
    <section class="events live-events">
      <h3>Live events {ended ? <span class="muted">(stream ended)</span> : <span class="status ok">following</span>}</h3>
      <ErrorBox error={error} />
      <Table rows={rows} columns={columns} empty="No events yet." rowKey={(e) => String(e.seq)} />
    </section>
  );
}

function History({ sessionId, shown }: { sessionId: string; shown: Set<TelemetryCategory> }) {
  // The newest first: the route reads backwards from the latest event (a `since` only reads forwards).
  const params = new URLSearchParams({ order: 'desc', limit: '100' });
  const none = shown.size === 0;
  if (shown.size < CATEGORIES.length) params.set('category', [...shown].join(','));
  const path = `/browsers/${seg(sessionId)}/telemetry/events?${params}`;
  const { data, error, reload } = useLoad((api) => (none ? Promise.resolve([]) : api.get<TelemetryEnvelope[]>(path)), path);
  return (
    <section class="events history">
      <h3>
        History <span class="muted">(the newest 100)</span>{' '}
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </h3>
      <ErrorBox error={error} />
      <Table rows={data} columns={columns} empty="No events stored." rowKey={(e) => String(e.seq)} />
    </section>
  );
}

function Logs({ sessionId }: { sessionId: string }) {
  const [process, setProcess] = useState('service');
  const path = `/browsers/${seg(sessionId)}/logs/stream?source=supervisor&supervisor_process=${seg(process)}&follow=true`;
  const { frames, error, ended } = useStream<LogFrame>(path, 1000);
  return (
    <section class="logs">
      <h3>Logs {ended && <span class="muted">(stream ended)</span>}</h3>
      <label>
        process{' '}
        <select value={process} onChange={(e) => setProcess(e.currentTarget.value)}>
          <option value="service">service (what the service did)</option>
          <option value="chromium">chromium (its stderr)</option>
        </select>
      </label>
      <ErrorBox error={error} />
      <pre class="log">
        {frames.map((f) => `${f.timestamp}  ${f.message}`).join('\n') || 'No lines yet.'}
      </pre>
    </section>
  );
}
