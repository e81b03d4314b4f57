// diff's consequences as the docs list them: every id's few words, and the rows
// of docs/diff.md's table, from diff's own and each system's record. Only the
// docs read this: building it reads each record, which a command loads only when it diffs.
import type { ConsequenceRow } from "../systems/consequences.ts";
import { consequenceRecords, OWN_SHORT } from "./consequences.ts";

/** The few words of each consequence id, diff's own and the systems'. */
export const SHORT: Readonly<Record<string, string>> = Object.assign({}, OWN_SHORT, ...consequenceRecords().map((r) => r.short));

/** What each kind of change does, for docs/diff.md's table (src/docs/generate.ts writes it). */
export const CONSEQUENCE_ROWS: readonly ConsequenceRow[] = consequenceRecords().flatMap((r) => r.rows);
