// G-04: secret values never enter values files. Whatever the profile, a
// string that looks like a credential is refused where it stands, before
// the schema sees it: Secrets are referenced by name and key instead.
import { formatPath, type Diagnostic } from "./diagnostic.ts";
import type { SourceDocument } from "./source.ts";

const LOOKS_SECRET: [RegExp, string][] = [
  [/-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/, "holds a private key"],
  [/^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i, "is a URL with an inline password"],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, "holds an AWS access key ID"],
  [/\bgh[pousr]_[A-Za-z0-9]{36,}\b/, "holds a GitHub token"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}\b/, "holds a Slack token"],
  [/^eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+$/, "holds a JSON Web Token"],
];

export const SECRET_FIX = "store it in a Secret (kubectl create secret generic ...) and reference the Secret by name and key";

export function inlineSecrets(source: SourceDocument): Diagnostic[] {
  const found: Diagnostic[] = [];
  const walk = (value: unknown, path: PropertyKey[]) => {
    if (typeof value === "string") {
      const hit = LOOKS_SECRET.find(([pattern]) => pattern.test(value));
      if (hit) found.push({ id: "G-04", path: formatPath(path), message: hit[1], fix: SECRET_FIX, location: source.locate(path) });
    } else if (value !== null && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) walk(child, [...path, Array.isArray(value) ? Number(key) : key]);
    }
  };
  walk(source.data, []);
  return found;
}
