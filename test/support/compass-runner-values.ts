// Hand-made generators: CompassRunner values that differ in every field that
// shapes the output (names, namespaces, hosts, paths, identities), which the
// admission tests draw; and mutations of any kind's values (a key replaced,
// removed or added, hostile keys, out-of-range numbers), which the hardening
// and validator tests apply. Valid values of every kind, drawn from each
// kind's JSON Schema, are support/values-arbitrary.ts's.
import fc from "fast-check";

const label = (max = 30) => fc.stringMatching(new RegExp(`^[a-z]([-a-z0-9]{0,${max - 2}}[a-z0-9])?$`));
const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const labelValue = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,40}[A-Za-z0-9])?$/);
/** A user or group name a CEL string literal can carry (CR-06). */
const identity = fc.stringMatching(/^[a-z][a-z0-9._@-]{0,20}(:[a-z0-9][a-z0-9._@-]{0,15}){0,2}[a-z0-9]$/);

/** Valid CompassRunner values, as a person would write them. */
export const validCompassRunner = fc
  .record({
    name: label(63),
    namespace: label(63),
    serviceAccount: fc.oneof(
      label(63),
      fc.tuple(label(20), label(20)).map(([a, b]) => `${a}.${b}`),
    ),
    repository: fc.tuple(label(20), label(20)).map(([a, b]) => `registry.example.com/${a}/${b}`),
    digest: hex(64),
    pairedTag: fc.option(
      fc.tuple(fc.nat(99999), hex(12)).map(([n, sha]) => `main-${n}-${sha}`),
      { nil: undefined },
    ),
    server: fc.oneof(
      fc.tuple(label(20), label(20)).map(([svc, ns]) => ({ address: `https://${svc}.${ns}.svc`, port: 443, external: false })),
      fc.tuple(label(20), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined })).map(([host, port]) => ({
        address: `https://${host}.example.com${port === undefined ? "" : `:${port}`}`,
        port: port ?? 443,
        external: true,
      })),
      fc
        .tuple(fc.integer({ min: 1, max: 254 }), fc.integer({ min: 1, max: 254 }))
        .map(([a, b]) => ({ address: `https://10.${a}.${b}.1`, port: 443, external: false })),
    ),
    serverName: fc.option(
      fc.tuple(label(20), label(20)).map(([a, b]) => `${a}.${b}.example`),
      { nil: undefined },
    ),
    ca: fc.constantFrom(undefined, "configMap", "secret"),
    maxTokenLifetime: fc.integer({ min: 600, max: 4294967296 }),
    tokenShare: fc.double({ min: 0, max: 1, noNaN: true }),
    hostname: labelValue,
    toleration: fc.option(
      fc.record({
        key: fc.tuple(label(20), label(20)).map(([a, b]) => `${a}.example/${b}`),
        value: labelValue,
        effect: fc.constantFrom("NoSchedule", "PreferNoSchedule", "NoExecute"),
      }),
      { nil: undefined },
    ),
    selectorKey: fc.constantFrom("kubernetes.io/hostname", "workload", "compass.example/runner"),
    capacity: fc.record({
      sessionCapacity: fc.integer({ min: 1, max: 64 }),
      guestMemoryMiB: fc.integer({ min: 1, max: 65536 }),
      guestCpus: fc.integer({ min: 1, max: 64 }),
      runnerOverheadMiB: fc.integer({ min: 0, max: 8192 }),
      perSessionReapSeconds: fc.integer({ min: 1, max: 3600 }),
    }),
    priorityClassValue: fc.integer({ min: 0, max: 1_000_000_000 }),
    hosts: fc.array(fc.tuple(label(20), fc.integer({ min: 0, max: 255 })), { maxLength: 2 }),
    sessions: label(20).map((a) => `/var/lib/${a}/sessions`),
    runtime: label(20).map((a) => `/srv/${a}/runtime`),
    controllers: fc.array(identity, { minLength: 1, maxLength: 3 }),
    deployers: fc.array(identity, { minLength: 1, maxLength: 3 }),
    breakGlassGroups: fc.option(fc.array(identity, { minLength: 1, maxLength: 2 }), { nil: undefined }),
    egress: fc.array(fc.record({ a: fc.integer({ min: 0, max: 255 }), port: fc.integer({ min: 1, max: 65535 }) }), { maxLength: 3 }),
    otel: fc.option(
      label(20).map((s) => `http://${s}.observability.svc:4318`),
      { nil: undefined },
    ),
  })
  .map((g) => {
    const tokenExpirationSeconds = Math.max(600, Math.floor(600 + g.tokenShare * (g.maxTokenLifetime - 600)));
    const egressAllow: Record<string, unknown>[] = g.egress.map((e) => ({ cidr: `10.${e.a}.0.0/16`, ports: [{ port: e.port }] }));
    g.hosts.forEach(([host, a], i) =>
      egressAllow.push(i % 2 === 0 ? { host: `${host}.example.org`, cidr: `198.51.${a}.0/24`, ports: [{ port: 443 }] } : { host: `192.0.2.${a}` }),
    );
    if (g.server.external && g.egress.length % 2 === 0) egressAllow.push({ cidr: "203.0.113.0/24", ports: [{ port: g.server.port }] });
    const values: Record<string, unknown> = {
      kind: "CompassRunner",
      name: g.name,
      namespace: g.namespace,
      serviceAccount: g.serviceAccount,
      image: `${g.repository}${g.pairedTag ? `:${g.pairedTag}` : ""}@sha256:${g.digest}`,
      serverAddr: g.server.address,
      // A server name is P9's: it comes with the opt-in (CS-14).
      ...(g.serverName ? { designed: { P9: true }, serverName: g.serverName } : {}),
      ...(g.ca ? { serverCA: { [g.ca]: { name: "compass-server-ca", key: "ca.crt" } } } : {}),
      tokenExpirationSeconds,
      maxTokenLifetimeSeconds: g.maxTokenLifetime,
      serverCluster: { namespace: g.namespace, serviceAccount: g.serviceAccount, audience: "compass-runner" },
      nodeSelector: { key: g.selectorKey, value: g.hostname },
      ...(g.toleration ? { toleration: g.toleration } : {}),
      kvmResourceName: "devices.kubevirt.io/kvm",
      ...g.capacity,
      priorityClassValue: g.priorityClassValue,
      maxUnavailable: 1,
      hostPaths: { sessionVolumeRoot: g.sessions, runtimeRoot: g.runtime },
      admission: { controllers: g.controllers, deployers: g.deployers, ...(g.breakGlassGroups ? { breakGlassGroups: g.breakGlassGroups } : {}) },
      egressAllow,
    };
    if (g.otel) values.otel = { endpoint: g.otel };
    return values;
  });

/** Every path into a JSON-like value (objects and arrays), the root first. */
export function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...pathsOf(item, [...prefix, i])));
  else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

function valueAtPath(root: unknown, path: (string | number)[]): unknown {
  let node = root as Record<string | number, unknown>;
  for (const segment of path) node = node[segment] as Record<string | number, unknown>;
  return node;
}

function parentOf(root: unknown, path: (string | number)[]): Record<string | number, unknown> {
  let node = root as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string | number, unknown>;
  return node;
}

/** Sets an own property, even `__proto__`, the way a YAML or JSON parser does. */
export function setOwn(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export type Mutation =
  | { kind: "replace"; at: number; value: unknown }
  | { kind: "remove"; at: number }
  | { kind: "extra"; at: number; key: string; value: unknown }
  | { kind: "number"; at: number; value: number }
  | { kind: "strings"; seed: string[] };

const hostileKey = fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", ""), fc.string({ maxLength: 12 }));
const outOfRange = fc.oneof(
  fc.constantFrom(-1, 0, 599, 4294967297, Number.MAX_SAFE_INTEGER, -Number.MAX_VALUE, 1e308, 0.5, Infinity, -Infinity, NaN, 65536),
  fc.double(),
  fc.integer(),
);

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), value: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("extra" as const), at: fc.nat(), key: hostileKey, value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ kind: fc.constant("number" as const), at: fc.nat(), value: outOfRange }),
  fc.record({
    kind: fc.constant("strings" as const),
    seed: fc.array(fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: "binary", maxLength: 30 })), { minLength: 1, maxLength: 8 }),
  }),
);

/** Applies a mutation to a deep copy of `values`. */
export function mutate(values: Record<string, unknown>, m: Mutation): Record<string, unknown> {
  const copy = structuredClone(values);
  const paths = pathsOf(copy);
  // Values whose every key was removed have no path left to replace or remove.
  if (paths.length < 2 && (m.kind === "replace" || m.kind === "number" || m.kind === "remove")) return copy;
  switch (m.kind) {
    case "replace":
    case "number": {
      const path = paths[1 + (m.at % (paths.length - 1))];
      setOwn(parentOf(copy, path), path[path.length - 1], m.value);
      return copy;
    }
    case "remove": {
      const path = paths[1 + (m.at % (paths.length - 1))];
      const parent = parentOf(copy, path);
      if (Array.isArray(parent)) parent.splice(path[path.length - 1] as number, 1);
      else delete parent[path[path.length - 1]];
      return copy;
    }
    case "extra": {
      const objects = paths.map((p) => valueAtPath(copy, p)).filter((v): v is object => v !== null && typeof v === "object" && !Array.isArray(v));
      setOwn(objects[m.at % objects.length], m.key, m.value);
      return copy;
    }
    case "strings": {
      let i = 0;
      // Every string but the kind, which only chooses the profile.
      for (const path of paths.slice(1).filter((p) => p.join() !== "kind")) {
        const parent = parentOf(copy, path);
        const key = path[path.length - 1];
        if (typeof parent[key] === "string") parent[key] = m.seed[i++ % m.seed.length];
      }
      return copy;
    }
  }
}
