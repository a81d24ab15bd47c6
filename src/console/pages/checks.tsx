// Monitors' checks (`bcs monitor deploy`) at a glance: every check by suite and group, with its status, its
// last and next run, its failing streak and its latest runs as marks; filtered by suite and status.
import { useEffect, useState } from 'preact/hooks';
import type { MonitorCheckState, MonitorStatus } from '../../api/types.js';
import { href, hrefWith } from '../router.js';
import { Section, useLoad } from '../ui.js';
import { CHECK_STATUSES, CheckActions, CheckStatusLabel, Failures, LastRun, RecentMarks, nextRun } from './check-state.js';

/** As often as the runs list: a run started by "Run now" shows up within a few seconds of ending. */
const POLL_MS = 5000;
/** The marks per check: enough to see a flaky one, few enough to fit a row. */
const RECENT = 20;

/** The list's filters, as the route's query names them (so a link can open the list filtered). */
const CHECK_FILTERS = ['suite', 'status'] as const;
type Filters = Record<(typeof CHECK_FILTERS)[number], string>;

const filtersOf = (query: URLSearchParams) => Object.fromEntries(CHECK_FILTERS.map((f) => [f, query.get(f) ?? ''])) as Filters;

export function ChecksPage({ query }: { query: URLSearchParams }) {
  const [filters, setFilters] = useState(() => filtersOf(query));
  useEffect(() => setFilters(filtersOf(query)), [query]);
  const set = (name: keyof Filters, value: string) => {
    const next = { ...filters, [name]: value };
    setFilters(next);
    // In the address without a new history entry, so Back from a check comes to the list as it was filtered.
    history.replaceState(null, '', hrefWith(['checks'], next));
  };
  const params = new URLSearchParams({ recent: String(RECENT) });
  for (const f of CHECK_FILTERS) if (filters[f].trim()) params.set(f, filters[f].trim());
  const filtered = params.has('suite') || params.has('status');
  const path = `/monitors/checks?${params}`;
  const { data, error, reload } = useLoad((api) => api.get<MonitorCheckState[]>(path), path, POLL_MS);
  return (
    <Section title="Checks" error={error}>
      <form class="filters" role="search" aria-label="Filter checks" onSubmit={(e) => e.preventDefault()}>
        <label>
          Suite <input type="search" name="suite" value={filters.suite} onInput={(e) => set('suite', e.currentTarget.value)} />
        </label>
        <label>
          Status{' '}
          <select name="status" value={filters.status} onChange={(e) => set('status', e.currentTarget.value)}>
            <option value="">any</option>
            {(Object.keys(CHECK_STATUSES) as MonitorStatus[]).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      {!data && !error && <p class="muted">Loading…</p>}
      {data?.length === 0 &&
        (filtered ? (
          <p class="muted">No checks match.</p>
        ) : (
          <p class="muted">
            No checks. Deploy a suite with <code>bcs monitor deploy DIR</code>.
          </p>
        ))}
      {data && bySuite(data).map(([suite, groups]) => <SuiteChecks key={suite} suite={suite} groups={groups} onChanged={reload} />)}
    </Section>
  );
}

type Groups = [group: string | null, checks: MonitorCheckState[]][];

/** The API lists checks by suite and name: kept in that order, the ungrouped ones of a suite first. */
function bySuite(checks: MonitorCheckState[]): [string, Groups][] {
  const suites = new Map<string, Map<string | null, MonitorCheckState[]>>();
  for (const c of checks) {
    const groups = suites.get(c.suite) ?? suites.set(c.suite, new Map([[null, []]])).get(c.suite)!;
    (groups.get(c.group) ?? groups.set(c.group, []).get(c.group)!).push(c);
  }
  return [...suites].map(([suite, groups]) => [suite, [...groups].filter(([, list]) => list.length > 0)]);
}

const COLUMNS = ['Status', 'Check', 'Last run', 'Next run', 'Failures', 'Latest runs', ''];

function SuiteChecks({ suite, groups, onChanged }: { suite: string; groups: Groups; onChanged: () => void }) {
  return (
    <section class="suite-checks" aria-label={`suite ${suite}`}>
      <header class="section-head">
        <h3>{suite}</h3>
        <a href={hrefWith(['runs'], { suite })}>Runs of {suite}</a>
      </header>
      <table class="checks">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th key={c} class={`col-${c.toLowerCase().replace(/\s+/g, '-') || 'actions'}`}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        {groups.map(([group, checks]) => (
          // A group is a row group: one table per suite keeps the columns of its groups aligned.
          <tbody key={group ?? ''} data-group={group ?? ''}>
            {group && (
              <tr class="group-head">
                <th colSpan={COLUMNS.length} scope="rowgroup">
                  {group}
                </th>
              </tr>
            )}
            {checks.map((c) => (
              <CheckRow key={c.id} check={c} onChanged={onChanged} />
            ))}
          </tbody>
        ))}
      </table>
    </section>
  );
}

function CheckRow({ check: c, onChanged }: { check: MonitorCheckState; onChanged: () => void }) {
  return (
    <tr data-row={c.id} class={`check ${c.status}`}>
      <td>
        <CheckStatusLabel check={c} />
      </td>
      <td>
        <a href={href('checks', c.id)} class="check-name">
          {c.name}
        </a>
      </td>
      <td>
        <LastRun check={c} />
      </td>
      <td>{nextRun(c)}</td>
      <td>
        <Failures check={c} />
      </td>
      <td>
        <RecentMarks recent={c.recent} />
      </td>
      <td>
        <CheckActions check={c} onChanged={onChanged} />
      </td>
    </tr>
  );
}
