// The GitHub Action adapter: the CLI's `github` command computes plans and reports, this publishes them.

export { apiOrigin, GithubApiError, nextLink, upsertComment, type CommentOutcome } from './comments.js';
export {
  booleanInput,
  detectMode,
  githubContextFromEnv,
  input,
  type Env,
  type GithubContext,
  type GithubDeps,
  type GithubMode,
} from './context.js';
export { annotationLines, publishApply, publishDiagnostics, publishPlan, type PublishOutcome } from './publish.js';
export { markerVariables, redactSecrets } from './redact.js';
export { appendOutputs, appendSummary, formatOutputs } from './workflow-files.js';
