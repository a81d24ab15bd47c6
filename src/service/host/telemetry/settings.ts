// A session's telemetry settings (categories captured, OTLP export destination): checked from a request,
// written to the store, and shown on the session object from memory while it runs, from the store after.
import type { BrowserTelemetryConfig, BrowserTelemetryRequest } from '../../../api/types.js';
import { invalidField } from '../errors.js';
import type { TelemetryRepo } from '../../store/telemetry-repo.js';
import { parseCategories, presentCategories, resolveCreate } from './config.js';
import type { OtlpExporter } from './otlp.js';
import type { Pending, State } from './session-state.js';

/** The settings a create's `telemetry` asks for; throws the 400 (naming `field`) when it cannot have them. */
export function createSettings(exporter: OtlpExporter, req: BrowserTelemetryRequest | null | undefined, field: string): Pending {
  const categories = resolveCreate(req, field);
  const exportDestination = req?.export?.otlp.destination ?? null;
  if (exportDestination !== null && !exporter.has(exportDestination)) {
    const known = exporter.names();
    throw invalidField(
      `${field}.export.otlp.destination`,
      `unknown destination '${exportDestination}'${known.length ? `; configured: ${known.join(', ')}` : '; none are configured'}`,
    );
  }
  return { categories, exportDestination };
}

/** Stores the session's settings as they are now, after any earlier write of them; the caller awaits it. */
export function saveSettings(repo: TelemetryRepo, state: State): Promise<void> {
  state.configured = true;
  const settings = { categories: state.categories ? [...state.categories] : null, export_destination: state.exportDestination };
  const write = state.saved.then(() => repo.saveSettings(state.id, settings));
  state.saved = write.catch(() => undefined);
  return write;
}

/** Each session's `telemetry`, for those that ever had any; ended sessions' settings in one query. */
export async function presentSettings(
  ids: readonly string[],
  states: ReadonlyMap<string, State>,
  repo: TelemetryRepo,
  exporter: OtlpExporter,
): Promise<Map<string, BrowserTelemetryConfig>> {
  const untracked = ids.filter((id) => !states.has(id));
  const stored = untracked.length ? await repo.settingsOf(untracked) : new Map<string, never>();
  const configs = new Map<string, BrowserTelemetryConfig>();
  for (const id of ids) {
    const state = states.get(id);
    const settings = stored.get(id);
    if (state ? !state.configured : !settings) continue;
    const categories = state ? state.categories : parseCategories(settings?.categories ?? null);
    const destination = state ? state.exportDestination : (settings?.export_destination ?? null);
    const config: BrowserTelemetryConfig = { browser: presentCategories(categories) };
    if (destination) config.export = { otlp: { destination, ...exporter.statusOf(id) } };
    configs.set(id, config);
  }
  return configs;
}
