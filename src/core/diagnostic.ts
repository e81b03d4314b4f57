// Diagnostics are the one shape every complaint takes, whether it comes from
// a values file (render) or from a manifest (check): where, which key, which
// requirement, what is wrong, and how to fix it.
import { printable } from "./printable.ts";

export interface Location {
  file: string;
  line?: number;
  column?: number;
}

export interface Diagnostic {
  /** Requirement ID from the catalog, for example `CR-03`. */
  id: string;
  /** Key path in the values file, for example `server.address`. */
  path: string;
  /** What is wrong, phrased to follow the key path. */
  message: string;
  /** How to fix it, phrased as the requirement. */
  fix: string;
  location?: Location;
}

export function formatLocation(location: Location | undefined): string {
  if (!location) return "";
  const { file, line, column } = location;
  if (line === undefined) return file;
  return column === undefined ? `${file}:${line}` : `${file}:${line}:${column}`;
}

/** `values.yaml:12:3 tokenExpirationSeconds: 300 is below 600 (CR-03: ...)`, safe to print. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = formatLocation(d.location);
  const key = d.path === "" ? "" : `${d.path}: `;
  return printable(`${where ? `${where} ` : ""}${key}${d.message} (${d.id}: ${d.fix})`);
}

/** Renders a path of keys and indexes as people write it: `a.b[0].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else {
      const key = String(segment);
      const plain = /^[A-Za-z_$][\w$-]*$/.test(key);
      out += plain ? (out ? "." : "") + key : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}
