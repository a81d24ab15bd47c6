// The signed-in console: sign-in, the left nav with the project an org-wide key acts in, and which page the
// hash names.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Project } from '../api/types.js';
import { createApi, keyStore, messageOf, projectStore, type Api } from './api.js';
import { CheckPage } from './pages/check.js';
import { ChecksPage } from './pages/checks.js';
import { ReplaysPage } from './pages/replays.js';
import { ResourcePage, RESOURCE_PAGES } from './pages/resources.js';
import { RunPage } from './pages/run.js';
import { RunsPage } from './pages/runs.js';
import { ScenarioHistoryPage } from './pages/scenario-history.js';
import { SessionPage } from './pages/session.js';
import { SessionsPage } from './pages/sessions.js';
import { TelemetryPage } from './pages/telemetry.js';
import { href, useRoute, type Route } from './router.js';
import { ApiContext } from './ui.js';

interface Identity {
  /** The key's own scope, whichever project a request picks. */
  authorization: { credential_scope: { project_id: string | null } };
}

export function App() {
  const [key, setKey] = useState(keyStore.get);
  const [scope, setScope] = useState<string | null>(null);
  const [project, setProject] = useState(projectStore.get);
  // A new Api per project: every page's loads depend on it, so picking another project reloads them all.
  const api = useMemo(() => (key ? createApi(key, project) : null), [key, project]);
  const choose = (id: string | null) => {
    if (id) projectStore.set(id);
    else projectStore.clear();
    setProject(id);
  };
  const { projects, refresh } = useProjects(key, project, choose);
  const route = useRoute();
  // A session belongs to one project: its page would only say "not found" in another, so the list is shown.
  const pick = (id: string | null, at: Route) => {
    if (at.parts[0] === 'sessions' && at.parts.length > 1) location.hash = href('sessions');
    choose(id);
  };
  // After a reload the key is still in the tab but its scope is not: asked again (a failure just leaves it out).
  useEffect(() => {
    if (key && scope === null) createApi(key).get<Identity>('/auth/context').then((who) => setScope(who.authorization.credential_scope.project_id), () => undefined);
  }, [key]);
  const signOut = () => {
    keyStore.clear();
    choose(null);
    setKey(null);
  };
  if (!api) {
    return (
      <SignIn
        onSignedIn={(k, scope) => {
          keyStore.set(k);
          setScope(scope);
          setKey(k);
        }}
      />
    );
  }
  return (
    <ApiContext.Provider value={api}>
      <div class="layout">
        <Nav onSignOut={signOut} scope={scope} picker={projects && <ProjectPicker projects={projects} project={project} onOpen={refresh} onChange={(id) => pick(id, route)} />} />
        {/* Keyed by project: a page's offsets and rows belong to the project they were read in. */}
        <main key={project ?? ''}>
          <Page route={route} />
        </main>
      </div>
    </ApiContext.Provider>
  );
}

function SignIn({ onSignedIn }: { onSignedIn: (key: string, scope: string | null) => void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const key = (new FormData(e.currentTarget as HTMLFormElement).get('key') as string | null)?.trim() ?? '';
    if (!key) return setError('enter an API key');
    setBusy(true);
    setError(undefined);
    try {
      // Checked once here, so a wrong key is said at the door rather than on every page.
      const who = await createApi(key).get<Identity>('/auth/context');
      onSignedIn(key, who.authorization.credential_scope.project_id);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Browser Cloud console</h1>
      <form onSubmit={submit}>
        <label>
          API key
          <input name="key" type="password" autocomplete="off" autofocus />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p class="muted">The key stays in this tab's session storage and is sent only in the Authorization header.</p>
    </main>
  );
}

/** The nav's entries: a route's first part and its title; the pages under it (a run, a session) keep it current. */
const NAV: [string, string][] = [['sessions', 'Sessions'], ['runs', 'Runs'], ['checks', 'Checks'], ...RESOURCE_PAGES.map((p): [string, string] => [p.id, p.title])];

/**
 * The projects an org-wide key can pick: read at sign-in (and page load), and again whenever the picker is
 * about to open, so a project made or archived since shows without a reload. Null while loading, and for a
 * key that may not list them: a scoped key is refused (403), an organisation without projects answers 404.
 */
function useProjects(key: string | null, project: string | null, choose: (id: string | null) => void): { projects: Project[] | null; refresh: () => void } {
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [asked, setAsked] = useState(0);
  // Whether this key's list was ever read: only a first failure says the key may not list projects.
  const listed = useRef(false);
  useEffect(() => {
    setProjects(null);
    listed.current = false;
  }, [key]);
  useEffect(() => {
    if (!key) return;
    let live = true;
    allProjects(createApi(key)).then(
      (list) => {
        if (!live) return;
        listed.current = true;
        setProjects(list);
      },
      // Without a picker no project is named, so that what is sent is what is shown. A re-read that failed
      // keeps the list it had.
      () => {
        if (live && !listed.current) choose(null);
      },
    );
    return () => {
      live = false;
    };
  }, [key, asked]);
  // A project deleted since it was picked would turn every request into a 404: back to the default scope.
  useEffect(() => {
    if (projects && project && !projects.some((p) => p.id === project)) choose(null);
  }, [projects, project]);
  return { projects, refresh: () => setAsked((n) => n + 1) };
}

async function allProjects(api: Api): Promise<Project[]> {
  const all: Project[] = [];
  for (let offset = 0; ; ) {
    const page = await api.list<Project>(`/org/projects?offset=${offset}&limit=100`);
    all.push(...page.rows);
    if (!page.hasMore || page.nextOffset <= offset) return all;
    offset = page.nextOffset;
  }
}

function ProjectPicker(props: { projects: Project[]; project: string | null; onOpen: () => void; onChange: (id: string | null) => void }) {
  const { projects, project, onOpen, onChange } = props;
  return (
    <label class="project-picker">
      Project
      <select value={project ?? ''} onFocus={onOpen} onChange={(e) => onChange(e.currentTarget.value || null)}>
        {/* Without the header an org-wide key acts in the org's default scope, which holds no project's resources. */}
        <option value="">Default scope (no project)</option>
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.status === 'archived' ? `${p.name} (archived)` : p.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Nav({ onSignOut, scope, picker }: { onSignOut: () => void; scope: string | null; picker: ComponentChildren }) {
  const current = useRoute().parts[0] ?? 'sessions';
  return (
    <nav>
      <h1>bcs console</h1>
      {scope && <p class="muted">project {scope}</p>}
      {picker}
      <ul>
        {NAV.map(([id, title]) => (
          <li key={id}>
            <a href={href(id)} class={current === id ? 'current' : ''}>
              {title}
            </a>
          </li>
        ))}
      </ul>
      <button type="button" class="link" onClick={onSignOut}>
        Sign out
      </button>
    </nav>
  );
}

/**
 * The sections with pages of their own under them, each given the rest of its route; the resource pages
 * are one page each. A new section is a line here and its entry in NAV.
 */
const SECTIONS: Record<string, (rest: string[], query: URLSearchParams) => JSX.Element> = {
  sessions: ([id, sub]) => {
    if (!id) return <SessionsPage />;
    if (sub === 'replays') return <ReplaysPage sessionId={id} />;
    if (sub === 'telemetry') return <TelemetryPage sessionId={id} />;
    return <SessionPage sessionId={id} />;
  },
  runs: ([id], query) => {
    // `history` is no run id: the service's ids are generated, and the API has /runs/history beside /runs/{id} too.
    if (id === 'history') return <ScenarioHistoryPage query={query} />;
    if (id) return <RunPage runId={id} focus={query.get('result')} />;
    return <RunsPage query={query} />;
  },
  // Keyed by id: another check's page starts empty rather than showing the last one's until it loads.
  checks: ([id], query) => (id ? <CheckPage key={id} checkId={id} /> : <ChecksPage query={query} />),
};

function Page({ route }: { route: Route }) {
  const [section = 'sessions', ...rest] = route.parts;
  const pages = Object.hasOwn(SECTIONS, section) ? SECTIONS[section] : undefined;
  if (pages) return pages(rest, route.query);
  const resource = RESOURCE_PAGES.find((p) => p.id === section);
  if (resource) return <ResourcePage page={resource} />;
  return <p class="error">No such page: {section}</p>;
}
