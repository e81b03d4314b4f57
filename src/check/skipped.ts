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

/** Rules that cannot judge manifests or judge them in part, and requirements no rule judges that carry a check note, of the checked profiles. */
export function skippedFor(profiles: readonly SystemName[]): Skipped[] {
  const entries = [
    ...catalog.allRules().flatMap((rule) => (rule.judged?.by === "not-manifests" ? [{ ...rule, reason: rule.judged.from }] : [])),
    ...catalog
      .allRules()
      .flatMap((rule) => (rule.judged?.by === "manifests" && rule.judged.except ? [{ ...rule, reason: `in part: ${rule.judged.except}` }] : [])),
    ...catalog
      .requirementEntries()
      .flatMap((entry) => (entry.judged?.by === "elsewhere" && entry.judged.checkNote ? [{ ...entry, reason: entry.judged.checkNote }] : [])),
  ];
  return entries.flatMap((entry) => {
    const concerned = entry.profiles.filter((p) => profiles.includes(p));
    return concerned.length === 0 ? [] : [{ ruleId: entry.id, profiles: [...concerned], reason: entry.reason }];
  });
}
