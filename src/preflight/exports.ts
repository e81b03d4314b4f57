// Secrets and ConfigMaps as `kubectl get -o yaml|json` prints them, so a secret is never typed.
import { UsageError } from "../core/errors.ts";
import { parseDocumentsWithPositions } from "../parse/source.ts";
import { readSecretFile, type Deadline } from "./common.ts";
import { printable } from "../core/printable.ts";

/** Kubernetes keeps a Secret or ConfigMap under 1 MiB; its export, base64 and all, fits in 2. */
const EXPORT_BYTES = 2 * 1024 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface ObjectExport {
  file: string;
  kind: "Secret" | "ConfigMap";
  name: string;
  type?: string;
  /** Every key, decoded. */
  data: Map<string, Buffer>;
}

/** Reads one exported Secret or ConfigMap. Values are never quoted in an error. */
export async function readExport(file: string, deadline: Deadline): Promise<ObjectExport> {
  const text = decode(await readSecretFile(file, deadline, EXPORT_BYTES), file);
  const where = printable(file);
  const docs = parsed(text, file);
  if (docs.length !== 1) throw new UsageError(`${where}: holds ${docs.length} YAML documents; export one object with kubectl get secret NAME -o yaml`);
  const object = docs[0].data as Record<string, unknown> | null;
  if (object === null || typeof object !== "object" || Array.isArray(object)) throw new UsageError(`${where}: is not a Kubernetes object`);
  const kind = object.kind;
  if (kind !== "Secret" && kind !== "ConfigMap") {
    throw new UsageError(
      `${where}: holds ${typeof kind === "string" ? `a ${printable(kind.slice(0, 60))}` : "no kind"}, expected a Secret or ConfigMap export (kubectl get secret NAME -o yaml)`,
    );
  }
  const metadata = object.metadata as Record<string, unknown> | undefined;
  const name = typeof metadata?.name === "string" ? metadata.name : "(unnamed)";
  const data = new Map<string, Buffer>();
  for (const [field, encoded] of [
    ["data", kind === "Secret"],
    ["binaryData", true],
    ["stringData", false],
  ] as const) {
    const entries = object[field];
    if (entries === undefined || entries === null) continue;
    if (typeof entries !== "object" || Array.isArray(entries)) throw new UsageError(`${where}: ${field} is not a mapping of keys`);
    for (const [key, value] of Object.entries(entries)) {
      if (typeof value !== "string") throw new UsageError(`${where}: ${field}.${printable(key)} is not a string`);
      if (!encoded) data.set(key, Buffer.from(value, "utf8"));
      else if (value.length % 4 === 0 && BASE64.test(value)) data.set(key, Buffer.from(value, "base64"));
      else throw new UsageError(`${where}: ${field}.${printable(key)} is not base64, as kubectl prints a ${kind}'s ${field}`);
    }
  }
  return { file, kind, name, type: typeof object.type === "string" ? object.type : undefined, data };
}

/** The documents of an export; a parse error keeps its position but not its words, which may quote the secret. */
function parsed(text: string, file: string): ReturnType<typeof parseDocumentsWithPositions> {
  try {
    return parseDocumentsWithPositions(text, file);
  } catch (error) {
    const at = /^.*?:(\d+):(\d+) not valid YAML/.exec((error as Error).message);
    throw new UsageError(
      `${printable(file)}: is not a YAML or JSON export${at ? ` (line ${at[1]}, column ${at[2]})` : ""}; make it with kubectl get secret NAME -o yaml`,
    );
  }
}

/** One key of an export; the error lists the keys there are. */
export function exportKey(exported: ObjectExport, key: string): Buffer {
  const value = exported.data.get(key);
  if (value !== undefined) return value;
  const keys = [...exported.data.keys()].map((k) => printable(k)).join(", ") || "none";
  throw new UsageError(`${printable(exported.file)}: ${exported.kind} ${printable(exported.name)} has no key ${printable(key)} (its keys: ${keys})`);
}

/** UTF-8 text of a file read for a secret, refusing binary input. */
export function decode(bytes: Buffer, file: string): string {
  if (bytes.includes(0)) throw new UsageError(`${printable(file)}: is a binary file, expected text`);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${printable(file)}: is not valid UTF-8 text`);
  }
}
