// The unified concurrency limit: on-demand sessions plus pool reservations (the sum of pool sizes) may not
// exceed `max_concurrent_sessions`, for the org and for each project (its own override, else the org's
// `default_project_max_concurrent_sessions`); a create counts against both. Standby browsers are not
// sessions and do not count.
//
// Exact under parallel creates: the caps are read from the database first (`caps`, the one await), then
// the check runs synchronously against usage counted in memory, and the caller counts what it admitted
// right after, with no await between; a create whose row is still being written is counted already.
import { DomainError } from '../errors.js';
import type { LimitsRepo, SessionCaps } from '../../store/limits-repo.js';

/** What runs now, in this service: everything, or one project's share when `projectId` is given. */
export interface Usage {
  /** On-demand sessions running or being created. */
  onDemand(projectId?: string): number;
  /** Browsers reserved by pools: the sum of their sizes, plus what creates and resizes admitted meanwhile. */
  reserved(projectId?: string): number;
}

/** `projectId` everywhere: the project a create acts in (null: the org's default scope, which has no project limit). */
export class ConcurrencyLimit {
  constructor(
    private readonly repo: Pick<LimitsRepo, 'sessionCaps'>,
    private readonly usage: Usage,
  ) {}

  /** The caps in force for a create in `projectId`; read before the synchronous admit call. */
  caps(projectId: string | null): Promise<SessionCaps> {
    return this.repo.sessionCaps(projectId);
  }

  /** Throws 429 unless one more on-demand session fits. Count it before the next await. */
  admitSession(caps: SessionCaps, projectId: string | null): void {
    this.checkProject(caps, projectId, 1, 'create a browser session');
    this.check(caps, 1, 'create a browser session');
  }

  /** Throws 429 unless pools may reserve `extra` more browsers. Count them before the next await. */
  admitReservation(caps: SessionCaps, extra: number, projectId: string | null): void {
    if (extra <= 0) return;
    const what = `reserve ${extra} more pooled browser${extra === 1 ? '' : 's'}`;
    this.checkProject(caps, projectId, extra, what);
    this.check(caps, extra, what);
  }

  private check(caps: SessionCaps, extra: number, what: string): void {
    const limit = caps.org;
    const onDemand = this.usage.onDemand();
    const reserved = this.usage.reserved();
    if (limit === null || onDemand + reserved + extra <= limit) return;
    throw exceeded(
      `cannot ${what}: the organization's max_concurrent_sessions is ${limit} and ${usageText(onDemand, reserved)}; ` +
        'end sessions, shrink or delete a pool, or raise the limit with PATCH /org/limits',
      'org_limit',
    );
  }

  private checkProject(caps: SessionCaps, projectId: string | null, extra: number, what: string): void {
    if (projectId === null || !caps.project || caps.project.limit === null) return;
    const { limit, source } = caps.project;
    const onDemand = this.usage.onDemand(projectId);
    const reserved = this.usage.reserved(projectId);
    if (onDemand + reserved + extra <= limit) return;
    const whose =
      source === 'project'
        ? `project '${projectId}' has max_concurrent_sessions ${limit}`
        : `project '${projectId}' has max_concurrent_sessions ${limit} (the organization's default_project_max_concurrent_sessions; it sets none of its own)`;
    throw exceeded(
      `cannot ${what}: ${whose} and ${usageText(onDemand, reserved)} in it; ` +
        `end sessions, shrink or delete a pool, or raise the limit with PATCH /org/projects/${projectId}/limits` +
        (source === 'org_default' ? ' or the default with PATCH /org/limits' : ''),
      'project_limit',
    );
  }
}

function usageText(onDemand: number, reserved: number): string {
  return (
    `${onDemand + reserved} are in use ` +
    `(${onDemand} on-demand session${onDemand === 1 ? '' : 's'}, ${reserved} reserved by browser pools)`
  );
}

/** Both limits answer the same code; the detail says which one it was. */
function exceeded(message: string, which: 'org_limit' | 'project_limit'): DomainError {
  return new DomainError('limit', 'concurrency_limit_exceeded', message, [{ code: which, message }]);
}
