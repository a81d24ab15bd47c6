// One session: what it is, its live view while it runs (with a scenario recorder beside it), and the way to its replays, telemetry and logs.
import { useState } from 'preact/hooks';
import type { BrowserSession } from '../../api/types.js';
import { ApiError, seg, type Api } from '../api.js';
import { LiveView } from '../live-view.js';
import { Recorder } from '../recorder.js';
import { href } from '../router.js';
import { ErrorBox, Json, Section, Tags, useAction, useApi, useLoad, when } from '../ui.js';
import { Status, keptWhy } from './sessions.js';

/** The session answer with the live view link the service adds (not in the wire types of every version). */
type Session = BrowserSession & { browser_live_view_url?: string };

export function SessionPage({ sessionId }: { sessionId: string }) {
  const api = useApi();
  const path = `/browsers/${seg(sessionId)}`;
  // Read by id once, then followed through the list: a call on the session itself is an event in its own
  // telemetry and log, which watching it should not fill.
  const detail = useLoad((a) => sessionById(a, sessionId), path);
  const listed = useLoad((a) => listedSession(a, sessionId), `${path}/listed`, 5000);
  const s = listed.data ?? detail.data;
  const error = detail.error ?? listed.error;
  const reload = listed.reload;
  const del = useAction();
  const [deleted, setDeleted] = useState(false);
  const remove = async () => {
    if (await del.run(() => api.send('DELETE', path))) {
      setDeleted(true);
      reload();
    }
  };
  const running = s && !s.deleted_at && !deleted;
  return (
    <Section
      title={`Session ${s?.name ?? sessionId}`}
      error={error}
      actions={
        <nav class="tabs">
          <a href={href('sessions', sessionId, 'replays')}>Replays</a>
          <a href={href('sessions', sessionId, 'telemetry')}>Telemetry and logs</a>
          {running && (
            <button type="button" class="danger" disabled={del.busy} onClick={remove}>
              Delete session
            </button>
          )}
        </nav>
      }
    >
      <ErrorBox error={del.error} />
      {deleted && <p role="status">Deleted.</p>}
      {s && (
        <>
          <dl class="facts">
            <dt>Id</dt>
            <dd>{s.session_id}</dd>
            <dt>Status</dt>
            <dd>
              <Status session={s} />
              {s.end_detail ? ` (${s.end_detail})` : ''}
            </dd>
            <dt>Mode</dt>
            <dd>{s.headless ? 'headless' : 'headful'}{s.stealth ? ', stealth' : ''}{s.kiosk_mode ? ', kiosk' : ''}</dd>
            <dt>Created</dt>
            <dd>{when(s.created_at)}</dd>
            {s.deleted_at && (
              <>
                <dt>Ended</dt>
                <dd>{when(s.deleted_at)}</dd>
              </>
            )}
            {s.kept && (
              <>
                <dt>Kept</dt>
                <dd>
                  until {when(s.kept.until)}: {keptWhy(s.kept.reason)}
                </dd>
              </>
            )}
            <dt>Timeout</dt>
            <dd>{s.timeout_seconds} s</dd>
            <dt>Pool</dt>
            <dd>{s.pool?.name ?? s.pool?.id ?? '—'}</dd>
            <dt>Profile</dt>
            <dd>{s.profile?.name ?? s.profile?.id ?? '—'}</dd>
            <dt>Tags</dt>
            <dd>
              <Tags tags={s.tags} />
            </dd>
          </dl>
          {running && <LiveSection session={s} />}
          <details>
            <summary>Full record</summary>
            <Json value={s} />
          </details>
        </>
      )}
    </Section>
  );
}

/** The session, live or ended: an ended one is no longer retrievable by id, but the list still has it. */
async function sessionById(api: Api, id: string): Promise<Session> {
  try {
    return await api.get<Session>(`/browsers/${seg(id)}`);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
    const ended = await listedSession(api, id);
    if (!ended) throw err;
    return ended;
  }
}

/** The session as the list shows it (undefined until it is listed: the list is searched by name and id). */
async function listedSession(api: Api, id: string): Promise<Session | undefined> {
  const found = await api.get<Session[]>(`/browsers?${new URLSearchParams({ status: 'all', query: id, limit: '100' })}`);
  return found.find((s) => s.session_id === id);
}

function LiveSection({ session }: { session: Session }) {
  const link = session.browser_live_view_url;
  if (typeof link !== 'string') return <p class="muted">This service offers no live view.</p>;
  let token: string | null = null;
  try {
    token = new URL(link).searchParams.get('token');
  } catch {
    // not a URL: said below
  }
  if (!token) return <p class="error">The live view link has no token.</p>;
  return (
    <section class="live">
      <h3>
        Live view{' '}
        <a href={link} target="_blank" rel="noreferrer">
          open alone
        </a>
      </h3>
      <div class="live-row">
        <LiveView sessionId={session.session_id} token={token} />
        <Recorder sessionId={session.session_id} />
      </div>
    </section>
  );
}
