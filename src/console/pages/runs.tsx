// Runs kept by the service (`bcs run --report-to`): the newest first, filtered by what a run was given.
import { useEffect, useState } from 'preact/hooks';
import type { Run, RunListParams, RunTrigger } from '../../api/types.js';
import { href, hrefWith } from '../router.js';
import { Pager, Section, Table, duration, usePagedLoad, when, type Column } from '../ui.js';

/** A run reports as it goes: often enough to see one finish, rarely enough to cost nothing. */
const POLL_MS = 5000;

type RunStatus = NonNullable<RunListParams['status']>;
const STATUSES: RunStatus[] = ['running', 'passed', 'failed', 'interrupted', 'error'];
const TRIGGERS: RunTrigger[] = ['ci', 'schedule', 'manual'];

/** The list's filters, as the route's query names them (so a link can open the list filtered). */
export const RUN_FILTERS = ['suite', 'branch', 'tag', 'status', 'trigger'] as const;
type Filters = Record<(typeof RUN_FILTERS)[number], string>;

const filtersOf = (query: URLSearchParams) => Object.fromEntries(RUN_FILTERS.map((f) => [f, query.get(f) ?? ''])) as Filters;

/** `query`: the route's, a new one on every move to the page (a link to the list filtered, the nav's plain link). */
export function RunsPage({ query }: { query: URLSearchParams }) {
  const [filters, setFilters] = useState(() => filtersOf(query));
  useEffect(() => setFilters(filtersOf(query)), [query]);
  const set = (name: keyof Filters, value: string) => {
    const next = { ...filters, [name]: value };
    setFilters(next);
    // Kept in the address without a new history entry, so Back from a run comes to the list as it was filtered.
    history.replaceState(null, '', hrefWith(['runs'], next));
  };
  const params = new URLSearchParams();
  for (const f of RUN_FILTERS) if (filters[f].trim()) params.set(f, filters[f].trim());
  const { data, error, go } = usePagedLoad<Run>(`/runs${params.size ? `?${params}` : ''}`, POLL_MS);
  const text = (name: 'suite' | 'branch' | 'tag', title: string) => (
    <label>
      {title} <input type="search" name={name} value={filters[name]} onInput={(e) => set(name, e.currentTarget.value)} />
    </label>
  );
  const choice = (name: 'status' | 'trigger', title: string, values: string[]) => (
    <label>
      {title}{' '}
      <select name={name} value={filters[name]} onChange={(e) => set(name, e.currentTarget.value)}>
        <option value="">any</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <Section title="Runs" error={error}>
      <form class="filters" role="search" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        {text('suite', 'Suite')}
        {text('branch', 'Branch')}
        {text('tag', 'Tag')}
        {choice('status', 'Status', STATUSES)}
        {choice('trigger', 'Trigger', TRIGGERS)}
      </form>
      <Table rows={data?.rows} columns={columns} empty="No runs." rowKey={(r) => r.id} />
      <Pager label="Runs" page={data} go={go} newestFirst />
    </Section>
  );
}

const columns: Column<Run>[] = [
  { title: 'Status', cell: (r) => <RunStatusLabel run={r} /> },
  {
    title: 'Run',
    cell: (r) => (
      <a href={href('runs', r.id)}>
        <code class="id">{r.id}</code>
      </a>
    ),
  },
  { title: 'Suite', cell: (r) => r.suite },
  { title: 'Branch', cell: (r) => r.branch ?? '' },
  { title: 'Commit', cell: (r) => <Commit sha={r.commit} /> },
  { title: 'Trigger', cell: (r) => r.trigger },
  { title: 'Shard', cell: (r) => shardOf(r) },
  { title: 'Started', cell: (r) => when(r.started_at) },
  { title: 'Duration', cell: (r) => runDuration(r) },
  { title: 'Results', cell: (r) => <Counts run={r} /> },
];

export function RunStatusLabel({ run }: { run: Run }) {
  return <span class={`status run-${run.status}`}>{run.status}</span>;
}

/** A commit as people quote it (its first 7 characters), the whole of it on hover. */
export function Commit({ sha }: { sha: string | null }) {
  if (!sha) return null;
  return (
    <code title={sha} class="commit">
      {/^[0-9a-f]{8,}$/i.test(sha) ? sha.slice(0, 7) : sha}
    </code>
  );
}

export const shardOf = (r: Run) => (r.shard ? `${r.shard.index}/${r.shard.total}` : '');

/** From its start to its end; a run still reporting has no duration yet. */
export function runDuration(r: Run): string {
  if (!r.finished_at) return r.status === 'running' ? 'running…' : '';
  return duration(Date.parse(r.finished_at) - Date.parse(r.started_at));
}

/** The summary the runner sent at the end: passed, failed (with errors) and flaky, or nothing while it runs. */
export function Counts({ run }: { run: Run }) {
  const s = run.summary;
  if (!s) return null;
  return (
    <span class="counts">
      <span class="count passed" title="passed">
        {s.passed} passed
      </span>
      <span class={`count ${s.failed + s.errored ? 'failed' : 'none'}`} title="failed, errors included">
        {s.failed + s.errored} failed
      </span>
      <span class={`count ${s.flaky ? 'flaky' : 'none'}`} title="passed on a retry">
        {s.flaky} flaky
      </span>
    </span>
  );
}
