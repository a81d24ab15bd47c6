// What every page shares: the API in context, loading (and polling) a route, errors, tables and times.
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf, type Api, type ListPage } from './api.js';

export const ApiContext = createContext<Api | null>(null);

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('the console is not signed in');
  return api;
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  reload: () => void;
}

/**
 * `load`'s result, loaded again when `key` changes and every `pollMs` if given. A poll's failure shows the
 * error but keeps the last data, so a blip does not blank the page.
 */
export function useLoad<T>(load: (api: Api) => Promise<T>, key: string, pollMs?: number): Loaded<T> {
  const api = useApi();
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const value = await loadRef.current(api);
        if (!live) return;
        setData(value);
        setError(undefined);
      } catch (err) {
        if (live) setError(messageOf(err));
      }
      if (live && pollMs) timer = setTimeout(run, pollMs);
    };
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, key, tick, pollMs]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload };
}

/** Rows per page of every paged list. */
export const PAGE_SIZE = 50;

/** A loaded page knows where it starts, so the pager describes the rows on screen, not the ones asked for. */
export type ShownPage<T> = ListPage<T> & { offset: number };

/**
 * `path` (a list route with its filters, without `offset` and `limit`) a page at a time, polled like
 * `useLoad`. The offset belongs to the path it was chosen on: a new filter starts again from the first page.
 */
export function usePagedLoad<T>(path: string, pollMs?: number): Loaded<ShownPage<T>> & { go: (offset: number) => void } {
  const [at, setAt] = useState({ path, offset: 0 });
  // Computed rather than waiting for the effect, so the first request on a new filter already asks for page one.
  const offset = at.path === path ? at.offset : 0;
  useEffect(() => setAt((a) => (a.path === path ? a : { path, offset: 0 })), [path]);
  const url = `${path}${path.includes('?') ? '&' : '?'}offset=${offset}&limit=${PAGE_SIZE}`;
  const loaded = useLoad(async (api) => ({ ...(await api.list<T>(url)), offset }), url, pollMs);
  const go = useCallback((next: number) => setAt({ path, offset: next }), [path]);
  return { ...loaded, go };
}

/** Runs an action (delete, flush, check) and reports its error; returns whether it succeeded. */
export function useAction(): { run: (action: () => Promise<unknown>) => Promise<boolean>; error: string | undefined; busy: boolean } {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (err) {
      setError(messageOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { run, error, busy };
}

export function ErrorBox({ error }: { error: string | undefined }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export interface Column<T> {
  title: string;
  cell: (row: T) => ComponentChildren;
}

export function Table<T>({ rows, columns, empty, rowKey }: { rows: T[] | undefined; columns: Column<T>[]; empty: string; rowKey: (row: T) => string }) {
  if (!rows) return <p class="muted">Loading…</p>;
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <table>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.title}>{c.title}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} data-row={rowKey(row)}>
            {columns.map((c) => (
              <td key={c.title}>{c.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Under a paged table: which rows are shown and the way to the pages either side. `newestFirst` lists name
 * their directions by time, as the rows read; the others are simply previous and next.
 */
export function Pager({ label, page, go, newestFirst }: { label: string; page: ShownPage<unknown> | undefined; go: (offset: number) => void; newestFirst?: boolean }) {
  return (
    <PagerNav
      label={label}
      page={page}
      newestFirst={newestFirst}
      back={page?.offset ? () => go(Math.max(0, page.offset - PAGE_SIZE)) : undefined}
      forward={page?.hasMore ? () => go(page.nextOffset) : undefined}
    />
  );
}

/** The pager's look, for lists that find their pages another way (the audit log's tokens). Hidden while there is nothing to page. */
export function PagerNav(props: { label: string; page: ShownPage<unknown> | undefined; newestFirst?: boolean | undefined; back: (() => void) | undefined; forward: (() => void) | undefined }) {
  const { page } = props;
  if (!page || (page.offset === 0 && page.rows.length === 0)) return null;
  const [back, forward] = props.newestFirst ? ['Newer', 'Older'] : ['Previous', 'Next'];
  // A page past the end (its rows deleted meanwhile) still offers the way back.
  const shown = page.rows.length ? `Rows ${page.offset + 1}–${page.offset + page.rows.length}` : `No rows from ${page.offset + 1}`;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={!props.back} onClick={props.back}>
        {back}
      </button>
      <span aria-live="polite">{page.hasMore ? `${shown}, more follow` : shown}</span>
      <button type="button" disabled={!props.forward} onClick={props.forward}>
        {forward}
      </button>
    </nav>
  );
}

/** A list page's frame: its title, what loading said, and the table. */
export function Section({ title, error, children, actions }: { title: string; error?: string | undefined; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section>
      <header class="section-head">
        <h2>{title}</h2>
        {actions}
      </header>
      <ErrorBox error={error} />
      {children}
    </section>
  );
}

/** How long ago `iso` was, briefly: `42s`, `5m`, `3h`, `2d`. */
export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '');

/** A duration for reading: `850 ms`, `12.3 s`, `4m 05s`. */
export function duration(ms: number | null | undefined): string {
  if (ms == null) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** A rate of 0..1 as a percentage; an absent rate (nothing counted) as a dash rather than 0 %. */
export const percent = (rate: number | null | undefined) => (rate == null ? '—' : `${(rate * 100).toFixed(rate === 0 || rate === 1 ? 0 : 1)} %`);

export function Tags({ tags }: { tags: Record<string, unknown> | undefined }) {
  const entries = Object.entries(tags ?? {});
  return (
    <>
      {entries.map(([k, v]) => (
        <span class="tag" key={k}>
          {k}={String(v)}
        </span>
      ))}
    </>
  );
}

/** A JSON value for reading: what a page shows in full (a session's settings, an event's data). */
export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** A list route as a paged table, polled so changes made elsewhere show up. */
export function ListSection<T>(props: { title: string; path: string; columns: Column<T>[]; rowKey: (row: T) => string; empty: string; pollMs?: number; newestFirst?: boolean }) {
  const { data, error, go } = usePagedLoad<T>(props.path, props.pollMs ?? 5000);
  return (
    <Section title={props.title} error={error}>
      <Table rows={data?.rows} columns={props.columns} rowKey={props.rowKey} empty={props.empty} />
      <Pager label={props.title} page={data} go={go} newestFirst={props.newestFirst} />
    </Section>
  );
}
