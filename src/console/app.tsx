// The signed-in console: sign-in, the left nav, and which page the hash names.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi, keyStore, messageOf } from './api.js';
import { ReplaysPage } from './pages/replays.js';
import { ResourcePage, RESOURCE_PAGES } from './pages/resources.js';
import { SessionPage } from './pages/session.js';
import { SessionsPage } from './pages/sessions.js';
import { TelemetryPage } from './pages/telemetry.js';
import { href, useRoute, type Route } from './router.js';
import { ApiContext } from './ui.js';

interface Identity {
  authorization: { effective_scope: { project_id: string | null } };
}

export function App() {
  const [key, setKey] = useState(keyStore.get);
  const [scope, setScope] = useState<string | null>(null);
  const api = useMemo(() => (key ? createApi(key) : null), [key]);
  const route = useRoute();
  // After a reload the key is still in the tab but its scope is not: asked again (a failure just leaves it out).
  useEffect(() => {
    if (api && scope === null) api.get<Identity>('/auth/context').then((who) => setScope(who.authorization.effective_scope.project_id), () => undefined);
  }, [api]);
  const signOut = () => {
    keyStore.clear();
    setKey(null);
  };
  if (!api) {
    return (
      <SignIn
        onSignedIn={(k, project) => {
          keyStore.set(k);
          setScope(project);
          setKey(k);
        }}
      />
    );
  }
  return (
    <ApiContext.Provider value={api}>
      <div class="layout">
        <Nav onSignOut={signOut} scope={scope} />
        <main>
          <Page route={route} />
        </main>
      </div>
    </ApiContext.Provider>
  );
}

function SignIn({ onSignedIn }: { onSignedIn: (key: string, project: string | null) => void }) {
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
      onSignedIn(key, who.authorization.effective_scope.project_id);
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

const NAV: [string, string][] = [['sessions', 'Sessions'], ...RESOURCE_PAGES.map((p): [string, string] => [p.id, p.title])];

function Nav({ onSignOut, scope }: { onSignOut: () => void; scope: string | null }) {
  const current = useRoute().parts[0] ?? 'sessions';
  return (
    <nav>
      <h1>bcs console</h1>
      {scope && <p class="muted">project {scope}</p>}
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

function Page({ route }: { route: Route }) {
  const [section = 'sessions', id, sub] = route.parts;
  if (section === 'sessions' && id) {
    if (sub === 'replays') return <ReplaysPage sessionId={id} />;
    if (sub === 'telemetry') return <TelemetryPage sessionId={id} />;
    return <SessionPage sessionId={id} />;
  }
  if (section === 'sessions') return <SessionsPage />;
  const resource = RESOURCE_PAGES.find((p) => p.id === section);
  if (resource) return <ResourcePage page={resource} />;
  return <p class="error">No such page: {section}</p>;
}
