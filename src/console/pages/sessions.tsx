// Sessions: the live list (polled), with the ended ones and why they ended, and the kept ones (a failed check's
// browser left at its failing step) with the way to their live view.
import { useState } from 'preact/hooks';
import type { BrowserSession } from '../../api/types.js';
import { href } from '../router.js';
import { Pager, Section, Table, Tags, age, usePagedLoad, type Column } from '../ui.js';

/** Often enough to see a session come and go, rarely enough to cost nothing. */
const POLL_MS = 2000;

export function SessionsPage() {
  const [withEnded, setWithEnded] = useState(true);
  const [keptOnly, setKeptOnly] = useState(false);
  const [query, setQuery] = useState('');
  const params = new URLSearchParams({ status: withEnded && !keptOnly ? 'all' : 'active' });
  if (keptOnly) params.set('kept', 'true');
  if (query.trim()) params.set('query', query.trim());
  const path = `/browsers?${params}`;
  const { data, error, go } = usePagedLoad<BrowserSession>(path, POLL_MS);
  const now = Date.now();
  const columns: Column<BrowserSession>[] = [
    { title: 'Session', cell: (s) => <a href={href('sessions', s.session_id)}>{s.session_id}</a> },
    { title: 'Name', cell: (s) => s.name ?? '' },
    { title: 'Status', cell: (s) => <Status session={s} /> },
    { title: 'Mode', cell: (s) => (s.headless ? 'headless' : 'headful') },
    { title: 'Age', cell: (s) => age(s.created_at, now) },
    { title: 'Pool', cell: (s) => s.pool?.name ?? s.pool?.id ?? '' },
    { title: 'Profile', cell: (s) => s.profile?.name ?? s.profile?.id ?? '' },
    { title: 'Tags', cell: (s) => <Tags tags={s.tags} /> },
  ];
  return (
    <Section
      title="Sessions"
      error={error}
      actions={
        <div class="filters">
          <input type="search" placeholder="Search names and ids" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
          <label>
            <input type="checkbox" checked={withEnded} onChange={(e) => setWithEnded(e.currentTarget.checked)} /> ended too
          </label>
          <label>
            <input type="checkbox" checked={keptOnly} onChange={(e) => setKeptOnly(e.currentTarget.checked)} /> kept only
          </label>
        </div>
      }
    >
      <Table rows={data?.rows} columns={columns} empty="No sessions." rowKey={(s) => s.session_id} />
      <Pager label="Sessions" page={data} go={go} />
    </Section>
  );
}

export function Status({ session }: { session: BrowserSession & { browser_live_view_url?: string } }) {
  const { kept } = session;
  if (!session.deleted_at && kept) {
    const link = session.browser_live_view_url;
    return (
      <span class="status kept" title={keptWhy(kept.reason)}>
        kept until {new Date(kept.until).toLocaleTimeString()}
        {link && (
          <>
            {' '}
            <a href={link} target="_blank" rel="noreferrer">
              live view
            </a>
          </>
        )}
      </span>
    );
  }
  if (!session.deleted_at) return <span class="status ok">running</span>;
  const reason = session.end_reason ? `ended: ${session.end_reason.replace(/_/g, ' ')}` : 'ended';
  return (
    <span class="status ended" title={session.end_detail ?? ''}>
      {reason}
    </span>
  );
}

/** Why a browser is kept, in one line: the failed scenario, its step and what went wrong. */
export function keptWhy(reason: NonNullable<BrowserSession['kept']>['reason']): string {
  const parts = [reason.scenario && `'${reason.scenario}' failed`, reason.step && `at '${reason.step}'`, reason.run_id && `(run ${reason.run_id})`];
  const head = parts.filter(Boolean).join(' ') || 'kept';
  return reason.message ? `${head}: ${reason.message.split('\n')[0]}` : head;
}
