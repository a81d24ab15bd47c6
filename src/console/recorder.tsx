// Recording a scenario from a session's live view: Playwright's recorder runs on the service against the
// session's browser (POST /browsers/{id}/recording/codegen), its toolbar drawn in the page, so what is done
// in the live view beside this panel is recorded. The YAML is read back every second while it records, and
// downloaded as a file: nothing has to be installed where the browser showing the console runs.
import { useEffect, useState } from 'preact/hooks';
import type { CodegenRecording } from '../api/types.js';
import { ApiError, messageOf, seg } from './api.js';
import { ErrorBox, useAction, useApi } from './ui.js';

/** How often the steps recorded so far are read while recording. */
const POLL_MS = 1000;

export function Recorder({ sessionId }: { sessionId: string }) {
  const api = useApi();
  const path = `/browsers/${seg(sessionId)}/recording/codegen`;
  const [rec, setRec] = useState<CodegenRecording | null>();
  const [pollError, setPollError] = useState<string>();
  const action = useAction();
  const recording = rec?.status === 'recording';

  // What the session has already (a recording started before this page was opened, or a stopped one),
  // then, while it records, what it has so far.
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const found = await api.get<CodegenRecording>(path);
        if (!live) return;
        setRec(found);
        setPollError(undefined);
        if (found.status === 'recording') timer = setTimeout(read, POLL_MS);
      } catch (err) {
        if (!live) return;
        // No recording yet; or the session has ended, and the last steps read are what there is.
        if (err instanceof ApiError && err.status === 404) setRec((r) => (r ? { ...r, status: 'stopped' } : null));
        else {
          setPollError(messageOf(err));
          timer = setTimeout(read, POLL_MS);
        }
      }
    };
    if (rec === undefined || recording) timer = setTimeout(read, rec === undefined ? 0 : POLL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, path, recording, rec === undefined]);

  const start = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const body: Record<string, string> = {};
    for (const field of ['url', 'name']) {
      const value = String(form.get(field) ?? '').trim();
      if (value) body[field] = value;
    }
    void action.run(async () => setRec(await api.send<CodegenRecording>('POST', path, body)));
  };
  const stop = () => void action.run(async () => setRec(await api.send<CodegenRecording>('DELETE', path)));

  return (
    <section class="recorder" aria-label="Record a scenario">
      <h3>Record a scenario</h3>
      {!recording && (
        <form class="record-form" onSubmit={start}>
          <label>
            Start at <input name="url" type="text" placeholder="https://… (empty: the page as it is)" maxLength={8192} />
          </label>
          <label>
            Name <input name="name" type="text" placeholder="the page's host" maxLength={255} />
          </label>
          <button type="submit" disabled={action.busy}>
            Record
          </button>
        </form>
      )}
      <ErrorBox error={action.error ?? pollError} />
      {rec && (
        <>
          <p class="record-status" role="status">
            {recording ? 'Recording' : 'Stopped'}: {rec.step_count === 1 ? '1 step' : `${rec.step_count} steps`}
            {recording && ' — use the page in the live view; its toolbar asserts visibility, text and values'}
          </p>
          <div class="record-actions">
            {recording && (
              <button type="button" class="danger" disabled={action.busy} onClick={stop}>
                Stop
              </button>
            )}
            <button type="button" onClick={() => download(`${rec.name}.yaml`, rec.yaml)}>
              Download YAML
            </button>
          </div>
          <pre class="yaml" aria-label="Recorded scenario">
            {rec.yaml}
          </pre>
        </>
      )}
    </section>
  );
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name.replace(/[/\\]/g, '_');
  a.click();
  // The download has taken the bytes by the time a minute has passed; revoking at once can cancel it.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
