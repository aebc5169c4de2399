import type { RetainReport, GcReport } from '../index.js';

/** Retention passes one store gets in a round at most. */
export declare const MAX_RETAIN_PASSES: number;

/** `30d`, `12h`, `500ms` in milliseconds; `off` as null when `off` is allowed; else a RangeError naming `what`. */
export declare function parseDuration(what: string, text: string, options?: { off?: boolean }): number | null;

/** Milliseconds written as parseDuration reads them, in the largest whole unit. */
export declare function formatDuration(ms: number): string;

/** Settings of one store's upkeep. `retentionMs` null keeps every version. */
export interface UpkeepSettings {
  retentionMs: number | null;
  minAgeMs: number;
  keepCommits: number;
}

/** One store's upkeep: bounded retention passes, then gc. */
export declare function upkeepStore(
  memory: { retain(options: { olderThanMs: number }): Promise<RetainReport>; gc(options: { keepCommits: number; minAgeMs: number }): Promise<GcReport> },
  settings: UpkeepSettings,
): Promise<{ dropped: number; deleted: number }>;
