// What tells the shards of one CI run apart from those of another: an id every machine of the run sees
// alike. Named with `--run-id`/BCS_RUN_ID, else taken from the CI's own run id; without either, a merge can
// only check that the shards ran the same selection with the same bcs.

export interface RunIdentity {
  id: string;
  /** Where the id came from (`--run-id`, `BCS_RUN_ID`, `GITHUB_RUN_ID`, ...), for messages. */
  from: string;
}

/**
 * The CI variables that hold one id for every job of a run, first found wins. Each names the whole run
 * (pipeline, workflow, build), not the job: the shards are jobs of it.
 */
export const CI_RUN_ID_VARIABLES = [
  'GITHUB_RUN_ID', // GitHub Actions: one per workflow run; a re-run of failed jobs keeps it
  'CI_PIPELINE_ID', // GitLab CI
  'BUILDKITE_BUILD_ID',
  'CIRCLE_WORKFLOW_ID', // CircleCI: the parallel jobs of a workflow
  'BUILD_BUILDID', // Azure Pipelines
  'BITBUCKET_PIPELINE_UUID',
  'TRAVIS_BUILD_ID',
  'BUILD_TAG', // Jenkins: jenkins-<job>-<build number>
] as const;

/** `flag` (`--run-id`) wins, then BCS_RUN_ID, then the CI's run id; an empty value counts as unset. */
export function runIdentity(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): RunIdentity | undefined {
  if (flag) return { id: flag, from: '--run-id' };
  for (const name of ['BCS_RUN_ID', ...CI_RUN_ID_VARIABLES]) {
    const value = env[name];
    if (value) return { id: value, from: name };
  }
  return undefined;
}
