export { Runs, type RunsDeps } from './runs.js';
export { ArtifactFiles, MAX_ARTIFACT_BYTES, contentTypeOf, showsInline } from './artifact-files.js';
