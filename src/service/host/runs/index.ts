export { Runs, type RunsDeps } from './runs.js';
export { ArtifactFiles, MAX_ARTIFACT_BYTES, contentTypeOf, showsInline } from './artifact-files.js';
export { RunUpkeep, DEFAULT_RUNS_RETENTION_DAYS, DEFAULT_RUNS_STALE_AFTER_MS, type SweepOutcome } from './run-upkeep.js';
