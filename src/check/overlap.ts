// Where a profile's rules and the Kubernetes schema meet on one object: a rule the schema's error
// stopped, and a finding both would report in the same words.
import type { SystemName } from "../rules/engine.ts";
import type { CheckFinding } from "./run.ts";
import type { Skipped } from "./skipped.ts";

/** The schema's findings but those a requirement already reports at the same field, in the same words (CS-08's annotation keys). */
export function saidOnce(schema: CheckFinding[], located: readonly CheckFinding[]): CheckFinding[] {
  if (schema.length === 0) return schema;
  const place = (f: CheckFinding) => `${f.file}\0${f.line}\0${f.path}`;
  const said = new Map<string, string[]>();
  for (const f of located) said.set(place(f), [...(said.get(place(f)) ?? []), f.message]);
  return schema.filter((f) => !said.get(place(f))?.some((message) => f.message.startsWith(message)));
}

/**
 * A rule that could not read a profile's objects: not judged where the schema refuses one of them (its error says
 * what to fix), an input problem (exit 2) where nothing else explains it.
 */
export function crashesFolded(crashed: { id: string; profile: SystemName; message: string }[], schema: readonly CheckFinding[], problems: string[]): Skipped[] {
  const refused = new Set(schema.filter((f) => f.severity === "error" && f.profile).map((f) => f.profile));
  const notJudged: Skipped[] = [];
  for (const { id, profile, message } of crashed) {
    if (refused.has(profile))
      notJudged.push({
        ruleId: id,
        profiles: [profile],
        reason: `the ${profile} objects hold a value the Kubernetes schema refuses (rule schema says where): ${message}`,
        whole: true,
      });
    else problems.push(`${id} could not read the ${profile} objects (a field of the wrong type?): ${message}`);
  }
  return notJudged;
}
