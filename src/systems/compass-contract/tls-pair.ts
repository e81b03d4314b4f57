// The Server and Runner pair over TLS: a change to one side alone fails
// enrollment until the other follows.
import type { X509Certificate } from "node:crypto";
import type { Container, Volume } from "kubernetes-types/core/v1";
import type { K8sObject } from "../../k8s/objects.ts";
import { flagOrEnv, flagValue } from "../../k8s/flag-or-env.ts";
import { mountHolding } from "../../rules/templates.ts";
import { type BothSides, type Consequence, type ObjectDiff, objectKeyOf } from "../consequences.ts";
import { certificatesOf, names, namesOf, secretText, signs } from "./certificates.ts";
import { isRunnerClusters, isRunnerDaemonSet, isServer, isServerDeployment } from "./roles.ts";
import { RUNNER_READING, RUNNER_SETTINGS } from "./runner-interface.ts";
import { SERVER_INTERFACE, SERVER_READING } from "./server-interface.ts";
import { entriesOf, identityOf } from "./token-pair.ts";

/** What the Runner trusts and verifies. */
interface RunnerTls {
  /** Where its CA comes from: `ConfigMap compass-server-ca key ca.crt`, or the system roots. */
  ca: string;
  /** The CA's ConfigMap, when the side holds it (its text is compared, never shown). */
  caObject?: K8sObject;
  caText?: string;
  /** The certificates of that text, when it holds any. */
  bundle?: X509Certificate[];
  /** The name it verifies, and the setting that gives it. */
  name?: string;
  nameFrom: "--server-name" | "serverAddr";
}

/** What the Server presents, and the hosts it is reached by. */
interface ServerTls {
  /** `Secret compass-server-tls key tls.crt`. */
  cert: string;
  /** The Secret, when the side holds it (its data is compared, never shown). */
  certObject?: K8sObject;
  certText?: string;
  /** The certificates of that text, leaf first, when it holds any. */
  chain?: X509Certificate[];
  publicHost?: string;
  /** The Service's in-cluster names, `NAME.NAMESPACE.svc` first. */
  serviceHosts: string[];
  /** The public host and the Service's names. */
  hosts: string[];
  services: K8sObject[];
}

const SYSTEM_ROOTS = "the system roots";
const SERVER_NAME = "--server-name";

/** The TLS pair's consequences, for every Runner with the Server that lists it, added to the diffs of the objects that carry each change. */
export function tlsPairConsequences(diffs: ObjectDiff[], sides: BothSides): void {
  const runnerOf = (ds: K8sObject | undefined, objects: readonly K8sObject[]) => ds && { ds, tls: runnerTls(ds, objects) };
  const serverOf = (deployment: K8sObject | undefined, objects: readonly K8sObject[]) => deployment && { deployment, tls: serverTls(deployment, objects) };
  const paired = new Set<string>();
  const runners = new Set([...sides.old, ...sides.new].filter(isRunnerDaemonSet).map(objectKeyOf));
  for (const key of runners) {
    const ds = { old: sides.old.find((o) => objectKeyOf(o) === key), new: sides.new.find((o) => objectKeyOf(o) === key) };
    const newServer = serving(ds.new, sides.new);
    const oldServer = newServer ? sides.old.find((o) => objectKeyOf(o) === objectKeyOf(newServer)) : serving(ds.old, sides.old);
    for (const server of [newServer, oldServer]) if (server) paired.add(objectKeyOf(server));
    judgePair(
      diffs,
      { old: runnerOf(ds.old, sides.old), new: runnerOf(ds.new, sides.new) },
      {
        old: serverOf(oldServer, sides.old),
        new: serverOf(newServer ?? (oldServer && sides.new.find((o) => objectKeyOf(o) === objectKeyOf(oldServer))), sides.new),
      },
    );
  }
  // A Server no Runner here pairs with is judged alone.
  const servers = new Set([...sides.old, ...sides.new].filter(isServerDeployment).map(objectKeyOf));
  for (const key of servers) {
    if (paired.has(key)) continue;
    const find = (objects: readonly K8sObject[]) =>
      serverOf(
        objects.find((o) => objectKeyOf(o) === key),
        objects,
      );
    judgePair(diffs, {}, { old: find(sides.old), new: find(sides.new) });
  }
}

/** The Server whose runner-clusters file names the Runner's namespace and ServiceAccount, else the side's only Server. */
function serving(ds: K8sObject | undefined, objects: readonly K8sObject[]): K8sObject | undefined {
  if (!ds) return undefined;
  const servers = objects.filter(isServerDeployment);
  const id = identityOf(ds);
  const lists = (server: K8sObject) =>
    objects.some((o) => isRunnerClusters(o) && sameNamespace(o, server) && (entriesOf(o) ?? []).some((e) => `${e.namespace}/${e.serviceAccount}` === id));
  return servers.find(lists) ?? (servers.length === 1 ? servers[0] : undefined);
}

type RunnerAt = { ds: K8sObject; tls: RunnerTls };
type ServerAt = { deployment: K8sObject; tls: ServerTls };

/** One Runner and the Server it enrolls with, each on both sides where present. */
function judgePair(diffs: ObjectDiff[], runner: Pair<RunnerAt>, server: Pair<ServerAt>): void {
  const add = (carriers: (K8sObject | undefined)[], consequence: Consequence) => carrier(diffs, carriers)?.consequences.push(consequence);
  const r = runner.new?.tls;
  const s = server.new?.tls;
  const caMoved = runner.old !== undefined && r !== undefined && moved(runner.old.tls.ca, r.ca, runner.old.tls.caText, r.caText);
  const certMoved = server.old !== undefined && s !== undefined && moved(server.old.tls.cert, s.cert, server.old.tls.certText, s.certText);

  if ((caMoved || certMoved) && r?.bundle && s?.chain) {
    // Both on NEW's side: whether the CA signs the certificate is known, whichever side changed.
    if (!signs(r.bundle, s.chain))
      add(caMoved ? [runner.new!.ds, r.caObject] : [server.new!.deployment, s.certObject], {
        id: "tls-trust",
        message: `the Runner's CA (${r.ca}) does not sign the Server's certificate (${s.cert}): enrollment fails with a TLS error until one of them follows`,
      });
  } else if (caMoved && !certMoved && r) {
    const change = changeOf("the Runner's Server CA", runner.old!.tls.ca, r.ca);
    const message = s
      ? `${change}, and the Server's certificate (${s.cert}) does not: enrollment fails with a TLS error until the Server's certificate follows, unless the new CA signs it already`
      : `${change}: enrollment fails with a TLS error until the Server presents a certificate the new CA signs (the Server is not in this diff)`;
    add([runner.new!.ds, r.caObject], { id: "tls-trust", message });
  }
  if (certMoved && !caMoved && s && r?.ca !== SYSTEM_ROOTS && !(r?.bundle && s.chain)) {
    const change = changeOf("the Server's certificate", server.old!.tls.cert, s.cert);
    const message = r
      ? `${change}, and the Runner's CA (${r.ca}) does not: enrollment fails with a TLS error until the Runner's CA follows, unless it signs the new certificate already${r.name ? ` and that names ${r.name}` : ""}`
      : `${change}: a Runner whose CA does not sign the new certificate fails enrollment with a TLS error until its CA follows (the Runner is not in this diff)`;
    add([server.new!.deployment, s.certObject], { id: "tls-trust", message });
  }
  nameConsequences(runner, server, add);
  const leaf = s?.chain?.[0];
  if (certMoved && leaf && r?.name && runner.old?.tls.name === r.name && !names(leaf, r.name))
    add([server.new!.deployment, s!.certObject], {
      id: "tls-name",
      message: `the Server's certificate (${s!.cert}) names ${namesOf(leaf)}, not ${r.name}, the name the Runner verifies (its ${r.nameFrom}): enrollment fails with a TLS error until the certificate names it or the Runner's ${r.nameFrom} follows`,
    });
}

type Pair<T> = { old?: T; new?: T };

/** The name the Runner verifies against the hosts the Server is reached by. */
function nameConsequences(runner: Pair<RunnerAt>, server: Pair<ServerAt>, add: (carriers: (K8sObject | undefined)[], consequence: Consequence) => void): void {
  const r = runner.new?.tls;
  const s = server.new?.tls;
  const nameMoved = runner.old !== undefined && r !== undefined && runner.old.tls.name !== r.name;
  const leaf = s?.chain?.[0];
  if (nameMoved && r?.name && leaf) {
    if (!names(leaf, r.name))
      add([runner.new!.ds], {
        id: "tls-name",
        message: `the Runner now verifies the Server's certificate for ${r.name} (${r.nameFrom === SERVER_NAME ? SERVER_NAME : "the host of its serverAddr"}; was ${runner.old!.tls.name ?? "no name"}), which the certificate (${s!.cert}) does not name (it names ${namesOf(leaf)}): enrollment fails with a TLS error until the Server's certificate names it`,
      });
  } else if (nameMoved && r?.name && !s?.hosts.includes(r.name)) {
    const change = `the Runner now verifies the Server's certificate for ${r.name} (${r.nameFrom === SERVER_NAME ? SERVER_NAME : "the host of its serverAddr"}; was ${runner.old!.tls.name ?? "no name"})`;
    const message =
      s && s.hosts.length > 0
        ? `${change}, which is neither the Server's public host (${s.publicHost ?? "none"}) nor its Service (${s.serviceHosts[0] ?? "none"}): enrollment fails with a TLS error until the Server is reached there with a certificate that names it`
        : `${change}: enrollment fails with a TLS error until the Server's certificate names it (${s ? "neither the Server's public host nor its Service is" : "the Server is not"} in this diff)`;
    add([runner.new!.ds], { id: "tls-name", message });
  }
  const before = server.old?.tls.hosts ?? [];
  const hostsMoved = s !== undefined && server.old !== undefined && before.join() !== s.hosts.join();
  if (!hostsMoved || nameMoved || !s) return;
  const lost = before.filter((host) => !s.hosts.includes(host));
  const was = server.old!.tls;
  const publicMoved = was.publicHost !== s.publicHost;
  const hosts = [
    ...(publicMoved ? [`the Server's public host changes from ${was.publicHost ?? "none"} to ${s.publicHost ?? "none"}`] : []),
    ...(was.serviceHosts.join() !== s.serviceHosts.join()
      ? [`${publicMoved ? "its" : "the Server's"} Service changes from ${was.serviceHosts[0] ?? "none"} to ${s.serviceHosts[0] ?? "none"}`]
      : []),
  ].join(" and ");
  const carriers = [server.new!.deployment, ...s.services, ...(server.old?.tls.services ?? [])];
  if (r?.name && lost.includes(r.name))
    add(carriers, {
      id: "tls-name",
      message: `${hosts}, and the Runner verifies ${r.name} (its ${r.nameFrom}): enrollment fails (a TLS error, or no such host) until the Runner's ${r.nameFrom} follows`,
    });
  else if (!r && lost.length > 0)
    add(carriers, {
      id: "tls-name",
      message: `${hosts}: a Runner that verifies one of them fails enrollment (a TLS error, or no such host) until its serverName or serverAddr follows (the Runner is not in this diff)`,
    });
}

/** `WHAT changes from A to B`, or `WHAT in A changes` when only what A holds changed. */
function changeOf(what: string, from: string, to: string): string {
  return from === to ? `${what} in ${to} changes` : `${what} changes from ${from} to ${to}`;
}

/** Whether a reference, or the text behind it where both sides hold it, changed. */
function moved(oldRef: string, newRef: string, oldText: string | undefined, newText: string | undefined): boolean {
  return oldRef !== newRef || (oldText !== undefined && newText !== undefined && oldText !== newText);
}

/** The diff of the first of `objects` that changed, by identity. */
function carrier(diffs: ObjectDiff[], objects: (K8sObject | undefined)[]): ObjectDiff | undefined {
  for (const object of objects) {
    const found = object && diffs.find((d) => d.new === object || d.old === object);
    if (found) return found;
  }
  return undefined;
}

function podSpecOf(object: K8sObject): { volumes?: Volume[]; containers?: Container[] } {
  return ((object.spec as { template?: { spec?: object } } | undefined)?.template?.spec ?? {}) as { volumes?: Volume[]; containers?: Container[] };
}

function runnerTls(ds: K8sObject, objects: readonly K8sObject[]): RunnerTls {
  const pod = podSpecOf(ds);
  const containers = pod.containers ?? [];
  const container = containers.find((c) => flagOrEnv(c, RUNNER_SETTINGS.server, RUNNER_READING)) ?? containers[0] ?? {};
  const caFile = flagOrEnv(container as Container, RUNNER_SETTINGS.ca, RUNNER_READING)?.value;
  const source = caFile ? fileSource(pod, container as Container, caFile) : undefined;
  const caObject =
    source?.kind === "ConfigMap" ? objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === source.name && sameNamespace(o, ds)) : undefined;
  const caText = caObject && source ? (caObject.data as Record<string, unknown> | undefined)?.[source.key] : undefined;
  const serverName = flagValue(container as Container, SERVER_NAME, RUNNER_READING)?.value;
  const address = flagOrEnv(container as Container, RUNNER_SETTINGS.server, RUNNER_READING)?.value;
  return {
    ca: !caFile ? SYSTEM_ROOTS : source ? `${source.kind} ${source.name} key ${source.key}` : `the file ${caFile}`,
    ...(caObject ? { caObject } : {}),
    ...(typeof caText === "string" ? { caText, bundle: certificatesOf(caText) } : {}),
    name: serverName || hostOf(address),
    nameFrom: serverName ? SERVER_NAME : "serverAddr",
  };
}

function serverTls(deployment: K8sObject, objects: readonly K8sObject[]): ServerTls {
  const pod = podSpecOf(deployment);
  const containers = pod.containers ?? [];
  const container = (containers.find((c) => flagValue(c, SERVER_INTERFACE.tlsCert.flag, SERVER_READING)) ?? containers[0] ?? {}) as Container;
  const certFile = flagValue(container, SERVER_INTERFACE.tlsCert.flag, SERVER_READING)?.value;
  const source = certFile ? fileSource(pod, container, certFile) : undefined;
  const certObject =
    source?.kind === "Secret" ? objects.find((o) => o.kind === "Secret" && o.metadata.name === source.name && sameNamespace(o, deployment)) : undefined;
  const encoded = (certObject?.data as Record<string, unknown> | undefined)?.[source?.key ?? ""];
  const plain = (certObject?.stringData as Record<string, unknown> | undefined)?.[source?.key ?? ""];
  const data = typeof plain === "string" ? plain : typeof encoded === "string" ? secretText(encoded, true) : undefined;
  const publicHost = hostOf(flagOrEnv(container, SERVER_INTERFACE.publicUrl, SERVER_READING)?.value);
  const services = objects.filter((o) => o.kind === "Service" && isServer(o) && sameNamespace(o, deployment));
  const namespace = deployment.metadata.namespace ?? "default";
  const serviceHosts = services.flatMap((svc) => [
    `${svc.metadata.name}.${namespace}.svc`,
    `${svc.metadata.name}.${namespace}`,
    `${svc.metadata.name}.${namespace}.svc.cluster.local`,
  ]);
  return {
    cert: source ? `${source.kind} ${source.name} key ${source.key}` : certFile ? `the file ${certFile}` : "none",
    ...(certObject ? { certObject } : {}),
    ...(data !== undefined ? { certText: data, chain: certificatesOf(data) } : {}),
    ...(publicHost ? { publicHost } : {}),
    serviceHosts,
    hosts: [...(publicHost ? [publicHost] : []), ...serviceHosts],
    services,
  };
}

/** The ConfigMap or Secret key a container reads `file` from, through its volume. */
function fileSource(pod: { volumes?: Volume[] }, container: Container, file: string): { kind: string; name: string; key: string } | undefined {
  const held = mountHolding({ spec: { containers: [], ...pod } }, container, file);
  const volume = held?.volume;
  if (!held || !volume) return undefined;
  let end = held.mount.mountPath.length;
  while (end > 1 && held.mount.mountPath.charCodeAt(end - 1) === 47) end--;
  const inside = file.slice(end === 1 ? 1 : end + 1);
  const keyOf = (items: { key: string; path: string }[] | undefined) => items?.find((i) => i.path === inside)?.key ?? inside;
  if (volume.configMap) return { kind: "ConfigMap", name: String(volume.configMap.name ?? ""), key: keyOf(volume.configMap.items) };
  if (volume.secret) return { kind: "Secret", name: String(volume.secret.secretName ?? ""), key: keyOf(volume.secret.items) };
  return undefined;
}

function sameNamespace(a: K8sObject, b: K8sObject): boolean {
  return (a.metadata.namespace ?? "default") === (b.metadata.namespace ?? "default");
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  return URL.canParse(url) ? new URL(url).hostname : undefined;
}
