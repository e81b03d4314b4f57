// Who asks in the request matrix: the fixed identities, and each string
// literal of the policies' CEL tried as a user and as a group.
import type { K8sObject } from "../k8s/objects.ts";
import { dig, list } from "../k8s/access.ts";
import { serviceAccountGroups, serviceAccountIdentity } from "../k8s/names.ts";

export interface Actor {
  who: string;
  user: string;
  groups?: string[];
  /** Named in the policies (a configured controller, deployer or break-glass identity). */
  named: boolean;
}

const AUTHENTICATED = "system:authenticated";
const sa = (ns: string, name: string): Actor => ({ who: `the ServiceAccount ${ns}/${name}`, ...serviceAccountIdentity(ns, name), named: false });

/** The fixed identities, by the name the matrix gives them. */
export const ACTORS = {
  ordinary: { who: "an ordinary user (alice)", user: "alice", groups: [AUTHENTICATED, "developers"], named: false },
  noGroups: { who: "a user with no groups (bob)", user: "bob", named: false },
  kubelet: { who: "a kubelet (system:node:node-1)", user: "system:node:node-1", groups: ["system:nodes", AUTHENTICATED], named: false },
  dsController: sa("kube-system", "daemon-set-controller"),
  nsController: sa("kube-system", "namespace-controller"),
  gc: sa("kube-system", "generic-garbage-collector"),
  kcm: { who: "the controller manager (system:kube-controller-manager)", user: "system:kube-controller-manager", groups: [AUTHENTICATED], named: false },
} satisfies Record<string, Actor>;

export type ActorName = keyof typeof ACTORS;

export const FIXED: readonly Actor[] = Object.values(ACTORS);

/** A literal's text that is an identity as written: no escape, no control character. */
const IDENTITY_TEXT = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\\]+$/;

/** At most this many string literals of the policies are tried as identities. */
const MAX_NAMED = 48;

/** The identities the policies name: every string literal of their CEL, tried as a user and as a group. */
export function namedActors(policies: readonly K8sObject[]): Actor[] {
  const fixed = new Set(FIXED.map((a) => a.user));
  const actors: Actor[] = [];
  // Any name an authenticator gives, as long as the values accept it as an
  // identity; a literal with an escape is left out, since its text is not the string it stands for.
  for (const literal of [...literalsOf(policies)].filter((l) => IDENTITY_TEXT.test(l) && !fixed.has(l)).slice(0, MAX_NAMED)) {
    const serviceAccount = /^system:serviceaccount:([^:]+):[^:]+$/.exec(literal);
    actors.push({
      who: `the user ${literal}`,
      user: literal,
      groups: serviceAccount ? serviceAccountGroups(serviceAccount[1]) : [AUTHENTICATED],
      named: true,
    });
    actors.push({ who: `a member of the group ${literal}`, user: `member-of-${literal}`, groups: [literal, AUTHENTICATED], named: true });
  }
  return actors;
}

function literalsOf(policies: readonly K8sObject[]): Set<string> {
  const literals = new Set<string>();
  for (const policy of policies) {
    for (const field of ["matchConditions", "variables", "validations"]) {
      for (const entry of list<Record<string, unknown>>(dig(policy, ["spec", field]))) {
        if (typeof entry?.expression !== "string" || entry.expression.length > 65536) continue;
        for (const m of entry.expression.matchAll(/"((?:[^"\\\n]|\\.){1,512})"|'((?:[^'\\\n]|\\.){1,512})'/g)) literals.add(m[1] ?? m[2]);
      }
    }
  }
  return literals;
}

/** A kubelet, by name or group. */
export const isNode = (a: Actor): boolean => a.user.startsWith("system:node:") || (a.groups ?? []).includes("system:nodes");
