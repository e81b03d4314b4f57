// Rendered examples put on the test control plane the way a user applies
// them: Namespaces first (a server-side dry run cannot create a Namespace and
// its objects in one call), the admission policies next, then the rest as the
// deployer the Runner's policies name (CR-06c refuses anyone else's DaemonSet).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments, parse, stringify } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { CLI, ROOT } from "../../support/cli.ts";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { ControlPlane } from "./control-plane.ts";

const exec = promisify(execFile);

export const EXAMPLES = ["compass-runner.yaml", "compass-server.yaml", "compass.yaml", "rootpilot-eks.yaml", "rootpilot-gke.yaml"];

/** The objects `rigging render` prints for a values file (and more arguments), and its notes on stderr. */
export async function render(valuesFile: string, extra: string[] = []): Promise<{ objects: K8sObject[]; notes: string }> {
  const { stdout, stderr } = await exec(process.execPath, [CLI, "render", "-f", valuesFile, ...extra], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const objects = parseAllDocuments(stdout)
    .map((d) => d.toJS() as K8sObject)
    .filter(Boolean);
  return { objects, notes: stderr };
}

export const rendered = async (valuesFile: string): Promise<K8sObject[]> => (await render(valuesFile)).objects;

/** The first admission.deployers identity of a values file (a Runner's own, or kind: Compass's runner section), if any. */
export function deployerOf(valuesFile: string): string | undefined {
  const values = parse(readFileSync(valuesFile, "utf8")) as Record<string, { admission?: { deployers?: string[] } } & Record<string, unknown>>;
  const admission = (values.admission ?? values.runner?.admission) as { deployers?: string[] } | undefined;
  return admission?.deployers?.[0];
}

export const examplePath = (name: string): string => join(ROOT, "examples", name);

export const yamlStream = (objects: readonly unknown[]): string => objects.map((o) => stringify(o)).join("---\n");

const ADMISSION = new Set(["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]);

/** kubectl as `user` (impersonated, with the groups of a ServiceAccount when it is one), or as the admin. */
export function asArgs(user?: string): string[] {
  if (!user) return [];
  const sa = /^system:serviceaccount:([^:]+):/.exec(user);
  return [`--as=${user}`, ...(sa ? ["--as-group=system:serviceaccounts", `--as-group=system:serviceaccounts:${sa[1]}`] : [])];
}

/** Server-side apply of `objects`; dryRun leaves the cluster as it was. Throws kubectl's stderr on failure. */
export async function apply(cp: ControlPlane, objects: readonly unknown[], options: { dryRun?: boolean; as?: string } = {}): Promise<string> {
  if (objects.length === 0) return "";
  const args = ["apply", "--server-side", "--validate=strict", "--field-manager=rigging-test", "-f", "-", ...asArgs(options.as)];
  if (options.dryRun) args.push("--dry-run=server");
  const r = await cp.kubectl(args, yamlStream(objects));
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}:\n${r.err}`);
  return r.out;
}

/** Namespaces, then policies, then the rest as the deployer; waits for the policies to hold before the workloads. */
export async function install(cp: ControlPlane, objects: readonly K8sObject[], deployer?: string): Promise<void> {
  await apply(
    cp,
    objects.filter((o) => o.kind === "Namespace"),
  );
  const policies = objects.filter((o) => ADMISSION.has(o.kind));
  await apply(cp, policies);
  if (policies.length > 0) await policiesHold(cp, objects);
  await apply(
    cp,
    objects.filter((o) => o.kind !== "Namespace" && !ADMISSION.has(o.kind)),
    { as: deployer },
  );
  // The token policy can be probed only once the ServiceAccount exists: a token request for none is refused before admission.
  if (JSON.stringify(policies).includes("serviceaccounts/token")) await tokenPolicyHolds(cp, objects);
}

/** Waits until an ordinary user's token request for the Runner ServiceAccount (a dry run) is refused by a policy. */
async function tokenPolicyHolds(cp: ControlPlane, objects: readonly K8sObject[]): Promise<void> {
  const ds = objects.find((o) => o.kind === "DaemonSet") as
    | { metadata: { namespace?: string }; spec?: { template?: { spec?: { serviceAccountName?: string } } } }
    | undefined;
  const account = ds?.spec?.template?.spec?.serviceAccountName;
  if (!ds || !account) return;
  const path = `/api/v1/namespaces/${ds.metadata.namespace}/serviceaccounts/${account}/token?dryRun=All`;
  const request = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: ["probe"], expirationSeconds: 3600 } };
  for (let i = 0; i < 120; i++) {
    const r = await cp.api("POST", path, request, { identity: "alice" });
    if (r.status === 403 && r.text.includes("ValidatingAdmissionPolicy")) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the Runner's token policy did not hold within 30 s");
}

/** A policy is enforced a moment after it and its binding exist: waits until an ordinary user's DaemonSet (a dry run, before the real one exists) is refused. */
export async function policiesHold(cp: ControlPlane, objects: readonly K8sObject[]): Promise<void> {
  const ds = objects.find((o) => o.kind === "DaemonSet");
  if (!ds) return;
  const path = `/apis/apps/v1/namespaces/${ds.metadata.namespace}/daemonsets?dryRun=All`;
  for (let i = 0; i < 120; i++) {
    const r = await cp.api("POST", path, ds, { identity: "alice" });
    if (r.status === 403 && r.text.includes("ValidatingAdmissionPolicy")) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the Runner's admission policies did not hold within 30 s");
}

const discovered = new WeakMap<ControlPlane, Map<string, string>>();

/** An object's path on the API server, its resource found by the server's own discovery. */
export async function pathOf(cp: ControlPlane, o: K8sObject): Promise<string> {
  const base = o.apiVersion.includes("/") ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  let known = discovered.get(cp);
  if (!known) discovered.set(cp, (known = new Map()));
  if (!known.has(`${o.apiVersion}/${o.kind}`)) {
    const list = (await cp.api("GET", base)).json() as { resources: { name: string; kind: string }[] };
    for (const r of list.resources) if (!r.name.includes("/")) known.set(`${o.apiVersion}/${r.kind}`, r.name);
  }
  const resource = known.get(`${o.apiVersion}/${o.kind}`);
  if (!resource) throw new Error(`the API server serves no ${o.kind} in ${o.apiVersion}`);
  return `${base}${o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : ""}/${resource}/${o.metadata.name}`;
}
