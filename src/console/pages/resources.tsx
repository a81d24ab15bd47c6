// The resource pages of the left nav; each lists its group through the group's list route.
import type { ComponentType } from 'preact';
import type { BrowserPool, Extension, Profile, Proxy } from '../../api/types.js';
import { seg } from '../api.js';
import { ErrorBox, ListSection, useAction, useApi, when, type Column } from '../ui.js';
import { AppsPage } from './apps.js';
import { AuthConnectionsPage } from './auth-connections.js';
import { ApiKeysPage, AuditPage, ProjectsPage } from './org.js';

export interface ResourcePageDef {
  id: string;
  title: string;
  Component: ComponentType;
  /** Organisation administration: the API ignores the project header there, so the page shows the whole org. */
  orgWide?: true;
}

export const RESOURCE_PAGES: ResourcePageDef[] = [
  { id: 'pools', title: 'Pools', Component: PoolsPage },
  { id: 'profiles', title: 'Profiles', Component: ProfilesPage },
  { id: 'extensions', title: 'Extensions', Component: ExtensionsPage },
  { id: 'proxies', title: 'Proxies', Component: ProxiesPage },
  { id: 'api-keys', title: 'API keys', Component: ApiKeysPage, orgWide: true },
  { id: 'projects', title: 'Projects and limits', Component: ProjectsPage, orgWide: true },
  { id: 'audit', title: 'Audit log', Component: AuditPage },
  { id: 'apps', title: 'Apps', Component: AppsPage },
  { id: 'auth-connections', title: 'Auth connections', Component: AuthConnectionsPage },
];

export function ResourcePage({ page }: { page: ResourcePageDef }) {
  const { project } = useApi();
  return (
    <>
      {/* Said, so that no one takes the org's list for the picked project's. */}
      {page.orgWide && project && <p class="muted">The whole organisation: the project picked does not apply here.</p>}
      <page.Component />
    </>
  );
}

function PoolsPage() {
  const api = useApi();
  const flush = useAction();
  const columns: Column<BrowserPool>[] = [
    { title: 'Name', cell: (p) => p.name ?? p.id },
    { title: 'Fill', cell: (p) => <Fill pool={p} /> },
    { title: 'Leased', cell: (p) => String(p.acquired_count) },
    { title: 'Idle', cell: (p) => String(p.available_count) },
    { title: 'Created', cell: (p) => when(p.created_at) },
    {
      title: '',
      cell: (p) => (
        <button type="button" disabled={flush.busy} onClick={() => flush.run(() => api.send('POST', `/browser_pools/${seg(p.id)}/flush`))}>
          Flush
        </button>
      ),
    },
  ];
  return (
    <>
      <ErrorBox error={flush.error} />
      <ListSection title="Pools" path="/browser_pools" columns={columns} rowKey={(p) => p.id} empty="No pools." pollMs={2000} />
    </>
  );
}

/** How full the pool is: its sessions (leased and idle) against its size. */
function Fill({ pool }: { pool: BrowserPool }) {
  const size = pool.browser_pool_config.size;
  const have = pool.acquired_count + pool.available_count;
  return (
    <span class="fill">
      <meter min={0} max={Math.max(size, 1)} value={have} /> {have}/{size}
    </span>
  );
}

function ProfilesPage() {
  const columns: Column<Profile>[] = [
    { title: 'Name', cell: (p) => p.name ?? '' },
    { title: 'Id', cell: (p) => p.id },
    { title: 'Created', cell: (p) => when(p.created_at) },
    { title: 'Last used', cell: (p) => when(p.last_used_at) },
  ];
  return <ListSection title="Profiles" path="/profiles" columns={columns} rowKey={(p) => p.id} empty="No profiles." />;
}

function ExtensionsPage() {
  const columns: Column<Extension>[] = [
    { title: 'Name', cell: (e) => e.name ?? '' },
    { title: 'Id', cell: (e) => e.id },
    { title: 'Size', cell: (e) => `${Math.round(e.size_bytes / 1024)} KiB` },
    { title: 'Uploaded', cell: (e) => when(e.created_at) },
  ];
  return <ListSection title="Extensions" path="/extensions" columns={columns} rowKey={(e) => e.id} empty="No extensions." />;
}

function ProxiesPage() {
  const api = useApi();
  const check = useAction();
  const columns: Column<Proxy>[] = [
    { title: 'Name', cell: (p) => p.name ?? '' },
    { title: 'Type', cell: (p) => p.type },
    { title: 'Status', cell: (p) => <span title={p.status_detail ?? ''}>{p.status ?? 'unchecked'}</span> },
    { title: 'Checked', cell: (p) => when(p.last_checked) },
    { title: 'IP', cell: (p) => p.ip_address ?? '' },
    {
      title: '',
      cell: (p) => (
        <button type="button" disabled={check.busy} onClick={() => check.run(() => api.send('POST', `/proxies/${seg(p.id)}/check`, {}))}>
          Check
        </button>
      ),
    },
  ];
  return (
    <>
      <ErrorBox error={check.error} />
      <ListSection title="Proxies" path="/proxies" columns={columns} rowKey={(p) => p.id} empty="No proxies." pollMs={2000} />
    </>
  );
}
