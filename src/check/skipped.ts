// The requirements of the checked profiles that manifests cannot show, which
// every format names rather than passing them in silence.
import type { SystemName } from "../rules/engine.ts";
import { catalog } from "../systems/registry.ts";

/** A requirement of a checked profile that manifests cannot show. */
export interface Skipped {
  ruleId: string;
  profiles: SystemName[];
  reason: string;
  /** The rule did not run at all on these objects (it could not read them), not only in part. */
  whole?: true;
}

/** Rules with `judgedFrom`, and requirements no rule judges that carry a check note, of the checked profiles. */
export function skippedFor(profiles: readonly SystemName[]): Skipped[] {
  const entries = [
    ...catalog
      .allRules()
      .filter((rule) => rule.judgedFrom)
      .map((rule) => ({ id: rule.id, profiles: rule.profiles, reason: rule.judgedFrom! })),
    ...catalog
      .allRules()
      .filter((rule) => rule.unjudged && !rule.judgedFrom)
      .map((rule) => ({
        id: rule.id,
        profiles: rule.profiles,
        reason: `in part: ${rule.unjudged!}`,
      })),
    ...catalog
      .requirementEntries()
      .filter((entry) => entry.checkNote)
      .map((entry) => ({ id: entry.id, profiles: entry.profiles, reason: entry.checkNote! })),
  ];
  return entries.flatMap((entry) => {
    const concerned = entry.profiles.filter((p) => profiles.includes(p));
    return concerned.length === 0 ? [] : [{ ruleId: entry.id, profiles: [...concerned], reason: entry.reason }];
  });
}
