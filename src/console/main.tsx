// The console's entry: `/live/{id}?token=T` is the live view alone (the token is its credential, no key
// needed); anything else is the signed-in console.
import { render } from 'preact';
import { App } from './app.js';
import { LiveView } from './live-view.js';

const root = document.getElementById('root')!;
const live = /^\/live\/([^/]+)$/.exec(location.pathname);
const token = new URLSearchParams(location.search).get('token');

if (live && token) {
  render(
    <main class="live-only">
      <LiveView sessionId={decodeURIComponent(live[1]!)} token={token} />
    </main>,
    root,
  );
} else if (live) {
  render(<p class="error" role="alert">This live view link has no token: open the session's browser_live_view_url.</p>, root);
} else {
  render(<App />, root);
}
