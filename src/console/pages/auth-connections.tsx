// Auth connections (managed logins) and their flows: where a flow stands, and the hosted page a person
// opens to finish it.
import { useState } from 'preact/hooks';
import type { ManagedAuth } from '../../api/types.js';
import { seg } from '../api.js';
import { href } from '../router.js';
import { ListSection, when, type Column } from '../ui.js';
import { EventLog } from './apps.js';

export function AuthConnectionsPage() {
  const [open, setOpen] = useState<string>();
  const columns: Column<ManagedAuth>[] = [
    { title: 'Domain', cell: (c) => c.domain },
    { title: 'Profile', cell: (c) => c.profile_name },
    { title: 'Status', cell: (c) => c.status },
    { title: 'Flow', cell: (c) => <Flow connection={c} /> },
    { title: 'Session', cell: (c) => (c.browser_session_id ? <a href={href('sessions', c.browser_session_id)}>{c.browser_session_id}</a> : '') },
    { title: 'Last login', cell: (c) => when(c.last_auth_at) },
    {
      title: '',
      cell: (c) => (
        <button type="button" class="link" onClick={() => setOpen(c.id)}>
          events
        </button>
      ),
    },
  ];
  return (
    <>
      <ListSection title="Auth connections" path="/auth/connections" columns={columns} rowKey={(c) => c.id} empty="No auth connections." pollMs={3000} />
      {open && <EventLog key={open} path={`/auth/connections/${seg(open)}/events`} title={`Events of ${open}`} />}
    </>
  );
}

function Flow({ connection: c }: { connection: ManagedAuth }) {
  if (!c.flow_status) return <span class="muted">none</span>;
  const step = c.flow_step ? `, ${c.flow_step.toLowerCase().replace(/_/g, ' ')}` : '';
  return (
    <span>
      {c.flow_type ? `${c.flow_type.toLowerCase()} ` : ''}
      {c.flow_status.toLowerCase()}
      {step}
      {c.error_message ? ` (${c.error_message})` : ''}
      {c.hosted_url && (
        <>
          {' '}
          <a href={c.hosted_url} target="_blank" rel="noreferrer">
            hosted page
          </a>
        </>
      )}
    </span>
  );
}
