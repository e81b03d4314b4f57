// CR-06: one admission identity entry, which must be a name some authenticator
// can produce, or the policy would guard nobody or everybody.
import { z } from "zod";
import { DNS1123_LABEL, DNS1123_SUBDOMAIN } from "../../k8s/names.ts";
import { refineBy, req, tagged, type IssueSink } from "../../values/values.ts";

export type IdentityList = "controllers" | "deployers" | "breakGlassGroups";

export const IDENTITY_MAX = 512;

/** Built-in group names (Kubernetes authenticators and RBAC defaults). */
const GROUPS = new Set([
  "system:masters",
  "system:authenticated",
  "system:unauthenticated",
  "system:serviceaccounts",
  "system:nodes",
  "system:bootstrappers",
  "system:monitoring",
]);
/** Built-in user names that are no group. */
const USERS = new Set(["system:anonymous", "system:kube-controller-manager", "system:kube-scheduler", "system:kube-proxy", "system:apiserver"]);
/** Groups whose members would all be break-glass: the policy would guard nobody. */
const EVERYONE = new Set(["system:authenticated", "system:unauthenticated", "system:serviceaccounts", "system:nodes", "system:bootstrappers"]);

const SA_USER = "system:serviceaccount:";
const SA_GROUP = "system:serviceaccounts:";
const NODE_USER = "system:node:";
const BOOTSTRAP_GROUP = "system:bootstrappers:";

function isGroupName(name: string): boolean {
  return GROUPS.has(name) || name.startsWith(SA_GROUP) || name.startsWith(BOOTSTRAP_GROUP);
}

function isUserName(name: string): boolean {
  return USERS.has(name) || name.startsWith(SA_USER) || name.startsWith(NODE_USER);
}

/** Why `name` cannot be an entry of `admission.<list>`, if it cannot. */
export function identityProblem(name: string, list: IdentityList): string | undefined {
  if (name.length === 0) return "is empty";
  if (name.length > IDENTITY_MAX) return `is longer than ${IDENTITY_MAX} characters`;
  const bad = /[\u0000-\u001f\u007f-\u009f\u2028\u2029'"`\\]/.exec(name);
  if (bad) return bad[0] === "\\" ? "contains a backslash" : /['"`]/.test(bad[0]) ? "contains a quote" : "contains a control character";
  if (name.trim() !== name) return "starts or ends with white space";
  if (name.startsWith(SA_USER)) {
    const [namespace, account, ...rest] = name.slice(SA_USER.length).split(":");
    if (rest.length > 0 || !DNS1123_LABEL.test(namespace ?? "") || !DNS1123_SUBDOMAIN.test(account ?? ""))
      return "is not a ServiceAccount user name: system:serviceaccount:<namespace>:<name>";
  }
  if (name.startsWith(SA_GROUP) && !DNS1123_LABEL.test(name.slice(SA_GROUP.length)))
    return "is not a ServiceAccount group name: system:serviceaccounts:<namespace>";
  if (name.startsWith(NODE_USER) && !DNS1123_SUBDOMAIN.test(name.slice(NODE_USER.length))) return "is not a node user name: system:node:<node name>";
  if (list === "breakGlassGroups") {
    if (isUserName(name)) return "is a user name, not a group";
    if (EVERYONE.has(name)) return "would make every member of a built-in group a break-glass member";
  } else {
    if (isGroupName(name)) return "is a group name, not a user name";
    if (name === "system:anonymous") return "is the anonymous user: anyone without credentials";
  }
  return undefined;
}

const FIX: Record<IdentityList, string> = {
  controllers:
    "list the user names of the controllers that create Runner pods, such as system:serviceaccount:kube-system:daemon-set-controller (see kubectl auth whoami)",
  deployers:
    "list the user names that apply the Runner DaemonSet, such as system:serviceaccount:flux-system:kustomize-controller or your own (kubectl auth whoami)",
  breakGlassGroups: "list the groups that may exec into Runner pods and mint their tokens, such as system:masters",
};

/** The values schema of one entry of `admission.<list>` (CR-06). */
export function identitySchema(list: IdentityList) {
  return refineBy(z.string(req("CR-06", "expected a string", FIX[list])), checkIdentity, list);
}

export function checkIdentity(name: string, ctx: IssueSink, list: IdentityList): void {
  const problem = identityProblem(name, list);
  if (problem) ctx.addIssue({ code: "custom", input: name, message: tagged("CR-06", problem, FIX[list]) });
}
