// Plain data as CEL sees Kubernetes objects (whole numbers as bigint); the fast
// path hands over the engine's own values so it does not copy on each access.
import type { Cel } from "./engine.ts";
import type { AdmissionRun } from "./run.ts";
import { isRecord } from "../k8s/access.ts";

const MAX_DEPTH = 200;

export function celData(run: AdmissionRun, value: unknown): unknown {
  return run.plain ? plainData(value, 0) : engineData(value, 0, run.engine());
}

/** An object of a request, converted once however many identities ask about it. */
export function cached(run: AdmissionRun, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object") return celData(run, value);
  if (!run.converted.has(value)) run.converted.set(value, celData(run, value));
  return run.converted.get(value);
}

/** Each map filled key by key, with the engine asked for once. */
function engineData(value: unknown, depth: number, engine: Cel): unknown {
  if (depth > MAX_DEPTH) return null;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return engine.celList(value.map((item) => engineData(item, depth + 1, engine)));
  if (isRecord(value)) {
    const map = new Map<string, unknown>();
    for (const key of Object.keys(value)) map.set(key, engineData(value[key], depth + 1, engine));
    return engine.celMap(map);
  }
  return value;
}

function plainData(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map((item) => plainData(item, depth + 1));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]): [string, unknown] => [k, plainData(v, depth + 1)]));
  return value;
}
