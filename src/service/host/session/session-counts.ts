// What the limits and the metrics count of sessions, kept as creates and ends happen (never recounted):
// on-demand sessions running or being created, in all and per project, and creates under way by kind.
import type { SessionKind } from './types.js';

export class SessionCounts {
  private onDemand = 0;
  private readonly onDemandByProject = new Map<string, number>();
  /** Creates given a slot and not yet answered, on-demand and for pools: what more hosts would absorb. */
  readonly creating: Record<SessionKind, number> = { on_demand: 0, pooled: 0 };
  /** Creates waiting for a launch right now (not a standby handoff). */
  coldCreates = 0;

  get onDemandTotal(): number {
    return this.onDemand;
  }

  onDemandIn(projectId: string): number {
    return this.onDemandByProject.get(projectId) ?? 0;
  }

  countOnDemand(projectId: string | null, delta: 1 | -1): void {
    this.onDemand += delta;
    if (projectId === null) return;
    const n = (this.onDemandByProject.get(projectId) ?? 0) + delta;
    if (n > 0) this.onDemandByProject.set(projectId, n);
    else this.onDemandByProject.delete(projectId);
  }
}
