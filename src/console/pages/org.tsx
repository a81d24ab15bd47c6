// The organisation: API keys (a new key is shown once), projects with their limits, and the audit log.
// Org-wide keys only: a project-scoped key sees the API's refusal as the page's error.
import { useState } from 'preact/hooks';
import type { ApiKey, AuditLogEntry, CreatedApiKey, OrgLimits, Project, ProjectLimits } from '../../api/types.js';
import { seg, type Api } from '../api.js';
import { ErrorBox, PAGE_SIZE, Pager, PagerNav, Section, Table, useAction, useApi, useLoad, usePagedLoad, when, type Column } from '../ui.js';

export function ApiKeysPage() {
  const api = useApi();
  const { data, error, reload, go } = usePagedLoad<ApiKey>('/org/api_keys');
  const action = useAction();
  const [created, setCreated] = useState<CreatedApiKey>();
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const name = String(fields.get('name') ?? '').trim();
    const project = String(fields.get('project') ?? '').trim();
    await action.run(async () => {
      setCreated(await api.send<CreatedApiKey>('POST', '/org/api_keys', { name, ...(project ? { project_id: project } : {}) }));
      form.reset();
      reload();
    });
  };
  const remove = (k: ApiKey) => action.run(async () => {
    await api.send('DELETE', `/org/api_keys/${seg(k.id)}`);
    reload();
  });
  const columns: Column<ApiKey>[] = [
    { title: 'Name', cell: (k) => k.name },
    { title: 'Key', cell: (k) => <code>{k.masked_key}</code> },
    { title: 'Project', cell: (k) => k.project_name ?? k.project_id ?? 'all (org-wide)' },
    { title: 'Created', cell: (k) => when(k.created_at) },
    { title: 'Expires', cell: (k) => (k.expires_at ? when(k.expires_at) : 'never') },
    { title: '', cell: (k) => <button type="button" class="danger" onClick={() => remove(k)}>Delete</button> },
  ];
  return (
    <Section title="API keys" error={error}>
      <form class="inline" onSubmit={create}>
        <input name="name" placeholder="New key's name" required maxLength={255} />
        <input name="project" placeholder="Project id (empty: org-wide)" maxLength={255} />
        <button type="submit" disabled={action.busy}>
          Create key
        </button>
      </form>
      <ErrorBox error={action.error} />
      {created && (
        <div class="once" role="status">
          <p>
            New key <strong>{created.name}</strong>: copy it now, it is not shown again.
          </p>
          <code class="secret">{created.key}</code>{' '}
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
      <Table rows={data?.rows} columns={columns} rowKey={(k) => k.id} empty="No keys." />
      <Pager label="API keys" page={data} go={go} />
    </Section>
  );
}

export function ProjectsPage() {
  const { data, error, go } = usePagedLoad<Project>('/org/projects', 5000);
  const limits = useLoad((a) => a.get<OrgLimits>('/org/limits'), 'limits');
  const columns: Column<Project>[] = [
    { title: 'Name', cell: (p) => p.name },
    { title: 'Id', cell: (p) => p.id },
    { title: 'Status', cell: (p) => p.status },
    { title: 'Created', cell: (p) => when(p.created_at) },
    { title: 'Max sessions', cell: (p) => <ProjectLimit id={p.id} /> },
  ];
  const l = limits.data;
  return (
    <>
      <Section title="Organisation limits" error={limits.error}>
        {l && (
          <dl class="facts">
            <dt>Concurrent sessions</dt>
            <dd>{l.max_concurrent_sessions || 'no limit'}</dd>
            <dt>Default per project</dt>
            <dd>{l.default_project_max_concurrent_sessions ?? 'no limit'}</dd>
          </dl>
        )}
      </Section>
      <Section title="Projects" error={error}>
        <Table rows={data?.rows} columns={columns} rowKey={(p) => p.id} empty="No projects." />
        <Pager label="Projects" page={data} go={go} />
      </Section>
    </>
  );
}

function ProjectLimit({ id }: { id: string }) {
  const path = `/org/projects/${seg(id)}/limits`;
  const { data, error } = useLoad((a) => a.get<ProjectLimits>(path), path);
  if (error) return <span class="error">{error}</span>;
  if (!data) return <span class="muted">…</span>;
  return <span>{data.max_concurrent_sessions ?? 'no limit'}</span>;
}

export function AuditPage() {
  const api = useApi();
  const columns: Column<AuditLogEntry>[] = [
    { title: 'Time', cell: (e) => when(e.timestamp) },
    { title: 'Method', cell: (e) => e.method },
    { title: 'Path', cell: (e) => <code>{e.path}</code> },
    { title: 'Status', cell: (e) => String(e.status) },
    { title: 'Key', cell: (e) => e.api_key_id ?? '' },
    { title: 'Project', cell: (e) => e.project_id ?? '' },
  ];
  const [hours, setHours] = useState(24);
  // The tokens of the pages after the first that led to the one shown: going back pops one.
  const [tokens, setTokens] = useState<string[]>([]);
  // The route asks for a window; it ends a minute ahead so that a request made just now is inside it.
  const query = (now = Date.now()) => {
    const q = new URLSearchParams({ start: new Date(now - hours * 3600_000).toISOString(), end: new Date(now + 60_000).toISOString(), limit: String(PAGE_SIZE) });
    if (tokens.length) q.set('page_token', tokens.at(-1)!);
    // The route ignores the project header: the picked project is asked for as a filter instead.
    if (api.project) q.set('project_id', api.project);
    return q;
  };
  const load = async (a: Api) => ({ ...(await a.list<AuditLogEntry>(`/audit-logs?${query()}`)), offset: tokens.length * PAGE_SIZE });
  const { data, error } = useLoad(load, `audit${hours}/${tokens.at(-1) ?? ''}`, 5000);
  const choose = (h: number) => {
    setHours(h);
    setTokens([]);
  };
  return (
    <Section title="Audit log" error={error}>
      <p class="muted">
        Requests that changed something{api.project ? ' in the project picked' : ''}, newest first, in the last{' '}
        <select value={hours} onChange={(e) => choose(Number(e.currentTarget.value))}>
          {[1, 24, 168, 720].map((h) => (
            <option key={h} value={h}>
              {h < 24 ? `${h} hour` : h === 24 ? "24 hours" : `${h / 24} days`}
            </option>
          ))}
        </select>
        .
      </p>
      <Table rows={data?.rows} columns={columns} rowKey={(e) => e.request_id ?? `${e.timestamp}${e.path}`} empty="Nothing in the log yet." />
      <PagerNav
        label="Audit log"
        page={data}
        newestFirst
        back={tokens.length ? () => setTokens(tokens.slice(0, -1)) : undefined}
        forward={data?.hasMore && data.nextPageToken ? () => setTokens([...tokens, data.nextPageToken!]) : undefined}
      />
    </Section>
  );
}
