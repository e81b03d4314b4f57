// The --runner-clusters file read as the Compass Server reads it, refusing what
// it refuses: the Server's rules check it, the Runner's rules and `diff` match a Runner against its entries.
import { LineCounter, parseAllDocuments, type Node } from "yaml";
import { type Target, V3Decoder, type V3Error, V3Failure } from "./yaml-v3.ts";
import { RUNNER_CLUSTERS_SCHEMA } from "./interface.ts";

const GO_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Seconds of a Go duration (time.ParseDuration's grammar), or undefined; linear in the bounded input. */
export function goDurationSeconds(text: string): number | undefined {
  if (text.length === 0 || text.length > 64) return undefined;
  if (text === "0" || text === "+0" || text === "-0") return 0;
  const whole = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/;
  if (!whole.test(text)) return undefined;
  let seconds = 0;
  for (const [, number, unit] of text.matchAll(/(\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g)) seconds += Number(number) * GO_UNITS[unit];
  return text.startsWith("-") ? -seconds : seconds;
}

/** One reason the Server would refuse the file; `entry` is the 0-based index. */
export interface ClusterFileProblem {
  entry?: number;
  key?: string;
  message: string;
}

/** A parsed entry, with the Server's defaults applied. */
export interface ParsedCluster {
  name: string;
  issuer: string;
  audience: string;
  namespace: string;
  serviceAccount: string;
  maxTokenLifetimeSeconds: number;
  jwksURI?: string;
  jwksFile?: string;
  caFile?: string;
}

function isHttpsUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" && url.host !== "";
  } catch {
    return false;
  }
}

const MAX_FILE_CHARS = 1 << 20;

/** The Server's types (runner_clusters.go): every entry field a string but the lifetime, a time.Duration. */
const ENTRY: Target = {
  kind: "struct",
  name: "auth.RunnerCluster",
  fields: Object.fromEntries(RUNNER_CLUSTERS_SCHEMA.keys.map((k) => [k, k === "maxTokenLifetime" ? { kind: "duration" } : { kind: "string" }])),
};
const FILE: Target = {
  kind: "struct",
  name: "auth.runnerClustersFile",
  fields: { [RUNNER_CLUSTERS_SCHEMA.topKey]: { kind: "slice", name: "auth.RunnerCluster", elem: ENTRY } },
};

/** A decode error in this reader's words: unknown keys and bare-number lifetimes say what to write instead. */
function problemOf(error: V3Error): ClusterFileProblem {
  const where = error.item === undefined ? "" : `entry ${error.item + 1} `;
  const line = error.line ? ` (line ${error.line})` : "";
  const at = { ...(error.item === undefined ? {} : { entry: error.item }), ...(error.field ? { key: error.field } : {}) };
  if (/^field .* not found/.test(error.message))
    return { ...at, message: `${where}has the unknown key ${JSON.stringify(error.field)}${line}; the Server refuses unknown keys` };
  const number = /^cannot unmarshal !!(?:int|float) `(.*)` into time\.Duration$/.exec(error.message);
  if (number)
    return {
      ...at,
      message: `${where}has maxTokenLifetime ${number[1]}${line}, a bare number: the Server's decoder (yaml.v3) refuses it for a time.Duration, which counts nanoseconds; write a Go duration such as ${number[1]}s`,
    };
  if (error.field === "maxTokenLifetime" && /into time\.Duration$/.test(error.message))
    return { ...at, message: `${where}has maxTokenLifetime that is not a Go duration such as 600s${line}: ${error.message}` };
  return { ...at, message: `${where}is refused by the Server's decoder${line}: ${error.message}` };
}

/** Reads a --runner-clusters file as the Server does (yaml.v3, KnownFields), listing every reason it would refuse to start. */
export function readRunnerClusters(text: string): { clusters: ParsedCluster[]; problems: ClusterFileProblem[] } {
  const problems: ClusterFileProblem[] = [];
  if (text.length > MAX_FILE_CHARS) return { clusters: [], problems: [{ message: `is larger than ${MAX_FILE_CHARS} characters` }] };
  const lines = new LineCounter();
  // The package's own duplicate check compares each key with every other: quadratic in a mapping's size.
  const docs = parseAllDocuments(text, { uniqueKeys: false, lineCounter: lines });
  if (!Array.isArray(docs)) return { clusters: [], problems: [{ message: "is not YAML" }] };
  if (docs.length > 1) problems.push({ message: "holds more than one YAML document; the Server reads one" });
  const doc = docs[0];
  if (!doc) return { clusters: [], problems };
  if (doc.errors.length > 0) return { clusters: [], problems: [...problems, { message: `is not YAML: ${doc.errors[0].message.split("\n")[0]}` }] };
  let file: Record<string, unknown> | undefined;
  let decoder: V3Decoder;
  try {
    decoder = new V3Decoder(doc, lines);
    decoder.unmarshal(doc.contents as Node | null, FILE, (v) => (file = v as Record<string, unknown>));
  } catch (error) {
    // yaml.v3 stops at these (an unknown anchor, an alias inside itself, excessive aliasing, a bad merge).
    if (error instanceof V3Failure) return { clusters: [], problems: [...problems, { message: `is refused by the Server's decoder: ${error.message}` }] };
    throw error;
  }
  problems.push(...decoder.errors.map(problemOf));
  const entries = (file?.[RUNNER_CLUSTERS_SCHEMA.topKey] ?? []) as Record<string, unknown>[];
  const read = entries.map((fields, index) => ({ index, cluster: clusterOf(fields as Record<string, string | number>) }));
  problems.push(...validate(read));
  return { clusters: read.map((r) => r.cluster), problems };
}

/** An entry with the Server's defaults: audience compass-runner, a lifetime of 600s for none or 0. */
function clusterOf(fields: Record<string, string | number>): ParsedCluster {
  const text = (key: string) => (typeof fields[key] === "string" ? (fields[key] as string) : "");
  const lifetime =
    typeof fields.maxTokenLifetime === "number" && fields.maxTokenLifetime !== 0 ? fields.maxTokenLifetime : RUNNER_CLUSTERS_SCHEMA.minLifetimeSeconds;
  return {
    name: text("name"),
    issuer: text("issuer"),
    audience: text("audience") || RUNNER_CLUSTERS_SCHEMA.defaultAudience,
    namespace: text("namespace"),
    serviceAccount: text("serviceAccount"),
    maxTokenLifetimeSeconds: lifetime,
    ...(text("jwksURI") ? { jwksURI: text("jwksURI") } : {}),
    ...(text("jwksFile") ? { jwksFile: text("jwksFile") } : {}),
    ...(text("caFile") ? { caFile: text("caFile") } : {}),
  };
}

/** validateRunnerClusters, rule for rule. */
function validate(read: readonly { index: number; cluster: ParsedCluster }[]): ClusterFileProblem[] {
  const problems: ClusterFileProblem[] = [];
  const names = new Set<string>();
  const issuers = new Map<string, string>();
  for (const { index: entry, cluster: c } of read) {
    const at = `entry ${entry + 1} (${JSON.stringify(c.name)})`;
    if (!RUNNER_CLUSTERS_SCHEMA.name.test(c.name)) problems.push({ entry, key: "name", message: `${at}: the name must match [a-z0-9-]{1,40}` });
    else if (names.has(c.name)) problems.push({ entry, key: "name", message: `${at}: the name is used twice` });
    names.add(c.name);
    if (!isHttpsUrl(c.issuer)) problems.push({ entry, key: "issuer", message: `${at}: the issuer must be an https:// URL with a host` });
    const issuer = c.issuer.endsWith("/") ? c.issuer.slice(0, -1) : c.issuer;
    const other = issuers.get(issuer);
    if (other !== undefined && c.issuer !== "")
      problems.push({
        entry,
        key: "issuer",
        message: `${at}: the issuer is already cluster ${JSON.stringify(other)}'s; issuers are unique (trailing / ignored)`,
      });
    else issuers.set(issuer, c.name);
    if (!c.namespace || !c.serviceAccount)
      problems.push({ entry, key: c.namespace ? "serviceAccount" : "namespace", message: `${at}: namespace and serviceAccount are required` });
    if (c.jwksURI && c.jwksFile) problems.push({ entry, key: "jwksFile", message: `${at}: jwksURI and jwksFile are mutually exclusive` });
    if (c.jwksURI && !isHttpsUrl(c.jwksURI)) problems.push({ entry, key: "jwksURI", message: `${at}: jwksURI must be an https:// URL` });
    if (c.maxTokenLifetimeSeconds < RUNNER_CLUSTERS_SCHEMA.minLifetimeSeconds)
      problems.push({
        entry,
        key: "maxTokenLifetime",
        message: `${at}: maxTokenLifetime ${c.maxTokenLifetimeSeconds}s is below the ${RUNNER_CLUSTERS_SCHEMA.minLifetimeSeconds}s minimum`,
      });
  }
  return problems;
}
