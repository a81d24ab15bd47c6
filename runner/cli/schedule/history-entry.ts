// What a schedule's history records of each run: index.json's shape, read by the index page and webhooks.

export type RunStatus = 'passed' | 'failed' | 'timeout' | 'error' | 'invalid' | 'interrupted';

export interface Failure {
  scenario: string;
  file: string;
  kind: string;
  message: string;
  location?: string;
}

export interface HistoryEntry {
  /** The run's folder name inside the history folder. */
  id: string;
  started_at: string;
  duration_ms: number;
  status: RunStatus;
  exit_code: number;
  summary: { total: number; passed: number; failed: number; errored: number; flaky: number; skipped: number };
  /** What did not pass (at most MAX_FAILURES), so the index and a webhook say why without opening the run. */
  failures: Failure[];
  /** The report files in the run's folder (results.json, and report.html, junit.xml when those reporters ran). */
  reports?: string[];
  /** The run's folder was deleted by `--keep`; the entry stays for the trend. */
  pruned?: boolean;
}

export interface HistoryIndex {
  version: 1;
  runs: HistoryEntry[];
}
