// `--report-to URL` (or `report_to` in bcs.config.yaml) for `bcs run` and `bcs schedule`: the reporter that
// sends the run to a service, told what the run is (suite, branch, commit, how it was started, its shard).
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';
import { CloudClient, type RunTrigger } from '../../src/api/index.js';
import type { RunReporter } from '../reporters/reporter.js';
import { reportToReporter } from '../reporters/report-to.js';
import type { SuiteConfig } from '../suite/config.js';
import type { Shard } from '../suite/select.js';
import { UsageError } from './usage-error.js';

export interface ReportToContext {
  outputDir: string;
  /** `schedule` for `bcs schedule`; else `ci` when the CI variable says so, or `manual`. */
  trigger?: RunTrigger;
  shard?: Shard;
  apiKey: string | undefined;
  say: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** The reporter `--report-to` asks for, or none. */
export function reportToReporters(o: Record<string, any>, config: SuiteConfig | undefined, ctx: ReportToContext): RunReporter[] {
  const url: string | undefined = o.reportTo || config?.reportTo?.url;
  if (!url) return [];
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`--report-to must be an http:// or https:// URL, got '${url}'`);
  if (!ctx.apiKey) throw new UsageError('--report-to needs an API key of that service: set BCS_API_KEY or pass --api-key-file');
  const env = ctx.env ?? process.env;
  const suite: string = o.suite || config?.reportTo?.suite || basename(process.cwd()) || 'bcs';
  // A monitor's check run (the service starts it) adds its own tags and says how it was started.
  const extraTags = (env.BCS_REPORT_TAGS ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  const tags = [...new Set([...(config?.reportTo?.tags ?? []), ...extraTags])];
  const trigger = ctx.trigger ?? triggerFromEnv(env.BCS_REPORT_TRIGGER) ?? (isCi(env) ? 'ci' : 'manual');
  const { branch, commit } = revision(env);
  return [
    reportToReporter({
      client: new CloudClient({ baseUrl: url, apiKey: ctx.apiKey }),
      outputDir: ctx.outputDir,
      run: {
        suite,
        trigger,
        ...(branch ? { branch } : {}),
        ...(commit ? { commit } : {}),
        ...(tags.length ? { tags } : {}),
        ...(ctx.shard ? { shard: ctx.shard } : {}),
      },
      say: ctx.say,
    }),
  ];
}

const triggerFromEnv = (value: string | undefined): RunTrigger | undefined =>
  value === 'ci' || value === 'schedule' || value === 'manual' ? value : undefined;

const isCi = (env: NodeJS.ProcessEnv) => Boolean(env.CI && env.CI !== 'false' && env.CI !== '0');

/**
 * The branch and commit the run is of: BCS_BRANCH and BCS_COMMIT, else what the CI says (GitHub Actions,
 * GitLab, Buildkite, CircleCI, Jenkins), else git in the working directory. A pull request's branch is its
 * head, not the merge ref.
 */
export function revision(env: NodeJS.ProcessEnv): { branch?: string; commit?: string } {
  const first = (...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v !== '');
  const branch = first('BCS_BRANCH', 'GITHUB_HEAD_REF', 'GITHUB_REF_NAME', 'CI_COMMIT_REF_NAME', 'BUILDKITE_BRANCH', 'CIRCLE_BRANCH', 'BRANCH_NAME', 'GIT_BRANCH');
  const commit = first('BCS_COMMIT', 'GITHUB_SHA', 'CI_COMMIT_SHA', 'BUILDKITE_COMMIT', 'CIRCLE_SHA1', 'GIT_COMMIT');
  return {
    branch: (branch ?? git(['rev-parse', '--abbrev-ref', 'HEAD']))?.slice(0, 255),
    commit: (commit ?? git(['rev-parse', 'HEAD']))?.slice(0, 255),
  };
}

function git(args: string[]): string | undefined {
  try {
    const out = execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 }).trim();
    // A detached HEAD has no branch name.
    return out && out !== 'HEAD' ? out : undefined;
  } catch {
    return undefined;
  }
}
