// Sessions: the live list (polled), with the ended ones and why they ended.
import { useState } from 'preact/hooks';
import type { BrowserSession } from '../../api/types.js';
import { href } from '../router.js';
import { Pager, Section, Table, Tags, age, usePagedLoad, type Column } from '../ui.js';

/** Often enough to see a session come and go, rarely enough to cost nothing. */
const POLL_MS = 2000;

export function SessionsPage() {
  const [withEnded, setWithEnded] = useState(true);
  const [query, setQuery] = useState('');
  const params = new URLSearchParams({ status: withEnded ? 'all' : 'active' });
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
        </div>
      }
    >
      <Table rows={data?.rows} columns={columns} empty="No sessions." rowKey={(s) => s.session_id} />
      <Pager label="Sessions" page={data} go={go} />
    </Section>
  );
}

export function Status({ session }: { session: BrowserSession }) {
  if (!session.deleted_at) return <span class="status ok">running</span>;
  const reason = session.end_reason ? `ended: ${session.end_reason.replace(/_/g, ' ')}` : 'ended';
  return (
    <span class="status ended" title={session.end_detail ?? ''}>
      {reason}
    </span>
  );
}
