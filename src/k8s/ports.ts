// Service and NetworkPolicy ports by name or number, resolved against a pod's
// container ports as kubernetes/pkg/api/v1/pod/util.go FindPort does: by name and
// protocol, in containers, then in sidecars (init containers with restartPolicy Always).

/** The protocol of a Service, NetworkPolicy or container port: the API server defaults it to TCP. */
export function protocolOf(port: unknown): string {
  const protocol = isRecord(port) ? port.protocol : undefined;
  return typeof protocol === "string" && protocol !== "" ? protocol : "TCP";
}

/** The containers whose ports a named port can name, in FindPort's order: containers, then sidecars. */
export function namedPortContainers(podSpec: unknown): unknown[] {
  if (!isRecord(podSpec)) return [];
  const containers = Array.isArray(podSpec.containers) ? podSpec.containers : [];
  const sidecars = (Array.isArray(podSpec.initContainers) ? podSpec.initContainers : []).filter((c) => isRecord(c) && c.restartPolicy === "Always");
  return [...containers, ...sidecars];
}

/** A port number as given, or the containerPort of the first container port with that name and protocol. */
export function resolvePort(port: unknown, containers: unknown, protocol = "TCP"): number | undefined {
  if (typeof port === "number") return isPortNumber(port) ? port : undefined;
  if (typeof port !== "string" || port === "" || !Array.isArray(containers)) return undefined;
  for (const container of containers) {
    if (!isRecord(container) || !Array.isArray(container.ports)) continue;
    for (const p of container.ports) {
      if (isRecord(p) && p.name === port && protocolOf(p) === protocol && isPortNumber(p.containerPort)) return p.containerPort;
    }
  }
  return undefined;
}

/**
 * The ports one NetworkPolicy `ports` entry allows on a pod: its protocol and a range (`port` to
 * `endPort`, every port when `port` is absent); undefined when a named port names no container port.
 */
export function policyPortRange(entry: unknown, containers: unknown): { protocol: string; from: number; to: number } | undefined {
  const protocol = protocolOf(entry);
  const port = isRecord(entry) ? entry.port : undefined;
  if (port === undefined || port === null) return { protocol, from: 1, to: 65535 };
  const from = resolvePort(port, containers, protocol);
  if (from === undefined) return undefined;
  const endPort = isRecord(entry) ? entry.endPort : undefined;
  const to = typeof port === "number" && isPortNumber(endPort) && endPort >= from ? endPort : from;
  return { protocol, from, to };
}

function isPortNumber(n: unknown): n is number {
  return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 65535;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
