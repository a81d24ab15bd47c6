// The unified concurrency limit: on-demand sessions plus pool reservations (the sum of pool sizes) may not
// exceed `max_concurrent_sessions`, for the org and for each project (its own override, else the org's
// `default_project_max_concurrent_sessions`); a create counts against both. Standby browsers are not
// sessions and do not count. Every check runs synchronously right before the thing it admits is counted,
// so parallel requests cannot overshoot.
import { DomainError } from '../errors.js';
import type { LimitsRepo } from '../../store/limits-repo.js';

export interface Usage {
  onDemand(): number;
  /** The sum of all pool sizes. */
  reserved(): number;
}

/** `projectId` everywhere: the project a create acts in (null: the org's default scope, which has no project limit). */
export class ConcurrencyLimit {
  constructor(
    private readonly repo: LimitsRepo,
    private readonly usage: Usage,
  ) {}

  /** Throws 429 unless one more on-demand session fits; `onDemand` counts those running or starting. */
  admitSession(onDemand: number, projectId: string | null): void {
    this.checkProject(projectId, 1, 'create a browser session');
    this.check(onDemand, this.usage.reserved(), 1, 'create a browser session');
  }

  /** Throws 429 unless pools may reserve `extra` more browsers. */
  admitReservation(extra: number, projectId: string | null): void {
    if (extra <= 0) return;
    const what = `reserve ${extra} more pooled browser${extra === 1 ? '' : 's'}`;
    this.checkProject(projectId, extra, what);
    this.check(this.usage.onDemand(), this.usage.reserved(), extra, what);
  }

  private check(onDemand: number, reserved: number, extra: number, what: string): void {
    const limit = this.repo.get().max_concurrent_sessions;
    if (limit === null || onDemand + reserved + extra <= limit) return;
    throw exceeded(
      `cannot ${what}: the organization's max_concurrent_sessions is ${limit} and ${usageText(onDemand, reserved)}; ` +
        'end sessions, shrink or delete a pool, or raise the limit with PATCH /org/limits',
      'org_limit',
    );
  }

  private checkProject(projectId: string | null, extra: number, what: string): void {
    if (projectId === null) return;
    const { limit, source } = this.repo.projectSessionCap(projectId);
    if (limit === null) return;
    const { onDemand, reserved } = this.repo.projectUsage(projectId);
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
