// The requests of rigging's CR-06 matrix (src/admission/requests.ts), made
// for real on the API server: mutations as dry runs, CONNECT requests as
// themselves (admission answers before the API server dials a kubelet).
import type { RequestShape } from "../../../src/admission/match.ts";
import type { RequestName } from "../../../src/admission/requests.ts";
import type { As, ControlPlane, Reply } from "./control-plane.ts";

export type Verdict = { allowed: true } | { allowed: false; policy: string };

const CONNECT_QUERY: Record<string, string> = { exec: "command=sh&stdin=true&tty=true", attach: "stdin=true", portforward: "ports=8080", proxy: "" };

/** What admission decided, from the reply; anything that admission did not decide is a broken test. */
export function verdictOf(what: string, r: Reply, connect: boolean): Verdict {
  const policy = /ValidatingAdmissionPolicy '([^']+)'/.exec(r.text);
  if (r.status === 403 && policy) return { allowed: false, policy: policy[1] };
  // After admission: a CONNECT reaches for a kubelet there is none of; a create meets the object that exists.
  if (connect || [200, 201, 202, 409].includes(r.status)) return { allowed: true };
  throw new Error(`${what}: not decided by admission (${r.status}): ${r.text.slice(0, 500)}`);
}

/** The live object's resourceVersion, so that an update of it is judged, not refused as a conflict. */
async function withVersion(cp: ControlPlane, path: string, object: unknown): Promise<unknown> {
  const live = (await cp.api("GET", path)).json() as { metadata: { resourceVersion: string; uid: string } };
  const o = object as { metadata: Record<string, unknown> };
  return { ...o, metadata: { ...o.metadata, resourceVersion: live.metadata.resourceVersion, uid: live.metadata.uid } };
}

/** Makes the matrix request `name` as `as`, and tells what admission decided. */
export async function serverVerdict(cp: ControlPlane, name: RequestName, req: RequestShape, as: As): Promise<Verdict> {
  const core = req.group === "" ? "/api/v1" : `/apis/${req.group}/${req.version}`;
  const collection = `${core}/namespaces/${req.namespace}/${req.resource}`;
  const item = `${collection}/${req.name}`;
  const what = `${name} as ${as.user ?? as.identity}`;
  if (req.operation === "CONNECT") {
    const query = CONNECT_QUERY[req.subResource ?? ""];
    const path = req.subResource === "proxy" ? `${item}/proxy/` : `${item}/${req.subResource}?${query}`;
    return verdictOf(what, await cp.api(req.subResource === "proxy" ? "GET" : "POST", path, undefined, as), true);
  }
  const sub = req.subResource ? `/${req.subResource}` : "";
  if (req.operation === "DELETE") return verdictOf(what, await cp.api("DELETE", `${item}?dryRun=All`, undefined, as), false);
  if (req.operation === "CREATE" && req.subResource === "token")
    return verdictOf(what, await cp.api("POST", `${item}/token?dryRun=All`, req.object, as), false);
  if (req.operation === "CREATE") return verdictOf(what, await cp.api("POST", `${collection}?dryRun=All`, req.object, as), false);
  const body = await withVersion(cp, item, req.object);
  return verdictOf(what, await cp.api("PUT", `${item}${sub}?dryRun=All`, body, as), false);
}

/** Who the API server says an impersonated identity is (system:authenticated added, as it adds it). */
export async function seenAs(cp: ControlPlane, as: As): Promise<{ user: string; groups: string[] }> {
  const r = await cp.api(
    "POST",
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    as,
  );
  if (r.status !== 201) throw new Error(`SelfSubjectReview as ${as.user}: ${r.status} ${r.text}`);
  const info = (r.json() as { status: { userInfo: { username: string; groups?: string[] } } }).status.userInfo;
  return { user: info.username, groups: info.groups ?? [] };
}
