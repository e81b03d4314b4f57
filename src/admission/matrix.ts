// CR-06 as a table: who makes which request, and what the policies must decide.
import type { ActorName } from "./actors.ts";
import type { RequestName } from "./requests.ts";

/** Groups of identities: every fixed one, those the policies name, and those found allowed by an earlier row. */
export type GroupName = "fixed" | "named" | "glass" | "creators" | "tokenOthers";
export type Who = readonly (ActorName | GroupName)[];

export type Row =
  /** Each identity of `who` must be decided `expected`; one finding per deciding field. */
  | { kind: "expect"; request: RequestName; who: Who; expected: "deny" | "allow"; why: string }
  /** The identities of `among` that are allowed, kept as group `as`. */
  | { kind: "allowed"; request: RequestName; among: Who; as: GroupName }
  /** Someone of `among` (or group `among`) must be allowed, unless an undecided function or a refused template explains it. */
  | { kind: "needs"; request: RequestName; among: Who | GroupName; missing: string; unlessBroken?: boolean; atPolicy?: boolean }
  /** When no identity of `among` is allowed, the first is reported. */
  | { kind: "either"; request: RequestName; among: Who; why: string };

const A = "CR-06a reserves it to the break-glass groups";
const GLASS = "the identity that may exec (break-glass) may also attach and add ephemeral containers (CR-06a)";
const E = "CR-06e denies it like exec (inferred)";
const C = "CR-06c reserves it to admission.deployers";
const HOUSEKEEPING = "(CR-06 must not break housekeeping)";
const DS_CALLERS: Who = ["ordinary", "noGroups", "kubelet", "dsController"];

export const MATRIX: readonly Row[] = [
  // CR-06a: exec, attach, ephemeral containers; the break-glass exception must exist.
  { kind: "allowed", request: "exec", among: ["named"], as: "glass" },
  { kind: "expect", request: "exec", who: ["fixed"], expected: "deny", why: A },
  { kind: "expect", request: "attach", who: ["fixed"], expected: "deny", why: A },
  { kind: "expect", request: "attach", who: ["glass"], expected: "allow", why: GLASS },
  { kind: "expect", request: "ephemeral", who: ["fixed"], expected: "deny", why: A },
  { kind: "expect", request: "ephemeral", who: ["glass"], expected: "allow", why: GLASS },
  {
    kind: "needs",
    request: "exec",
    among: "glass",
    atPolicy: true,
    missing: "no identity may exec into a Runner pod: the break-glass exception of CR-06a (admission.breakGlassGroups, default system:masters) is missing",
  },
  // CR-06e (inferred): port-forward and proxy are denied like exec.
  { kind: "expect", request: "portforward", who: ["fixed"], expected: "deny", why: E },
  { kind: "expect", request: "proxy", who: ["fixed"], expected: "deny", why: E },
  // CR-06b: only the controllers create Runner pods; kubelets update pod status, the creators delete pods.
  {
    kind: "expect",
    request: "createPod",
    who: ["ordinary", "noGroups", "kubelet", "nsController", "gc"],
    expected: "deny",
    why: "CR-06b reserves it to admission.controllers",
  },
  { kind: "allowed", request: "createPod", among: ["dsController", "kcm", "named"], as: "creators" },
  {
    kind: "needs",
    request: "createPod",
    among: "creators",
    unlessBroken: true,
    missing: "no identity may create Runner pods: the DaemonSet controller cannot start the Runner (CR-06b needs admission.controllers)",
  },
  { kind: "expect", request: "podStatus", who: ["kubelet"], expected: "allow", why: `kubelets must keep updating pod status ${HOUSEKEEPING}` },
  { kind: "expect", request: "deletePod", who: ["creators"], expected: "allow", why: `the DaemonSet controller must keep deleting its pods ${HOUSEKEEPING}` },
  // CR-06c: only the deployers change the DaemonSet; the namespace controller and the garbage collector delete it.
  { kind: "expect", request: "createDs", who: DS_CALLERS, expected: "deny", why: C },
  {
    kind: "needs",
    request: "createDs",
    among: ["named"],
    unlessBroken: true,
    missing: "no identity may create the Runner DaemonSet: CR-06c needs admission.deployers to be allowed",
  },
  { kind: "expect", request: "updateDs", who: DS_CALLERS, expected: "deny", why: C },
  {
    kind: "needs",
    request: "updateDs",
    among: ["named"],
    unlessBroken: true,
    missing: "no identity may update the Runner DaemonSet: CR-06c needs admission.deployers to be allowed",
  },
  { kind: "expect", request: "deleteDs", who: DS_CALLERS, expected: "deny", why: C },
  {
    kind: "needs",
    request: "deleteDs",
    among: ["named"],
    missing: "no identity may delete the Runner DaemonSet: CR-06c needs admission.deployers to be allowed",
  },
  {
    kind: "either",
    request: "deleteDs",
    among: ["nsController", "kcm"],
    why: `the namespace controller must delete the DaemonSet when its namespace goes ${HOUSEKEEPING}`,
  },
  { kind: "either", request: "deleteDs", among: ["gc", "kcm"], why: `the garbage collector must delete the DaemonSet when its owner goes ${HOUSEKEEPING}` },
  { kind: "either", request: "updateDs", among: ["gc", "kcm"], why: `the garbage collector must update the DaemonSet's finalizers ${HOUSEKEEPING}` },
  { kind: "either", request: "dsStatus", among: ["dsController", "kcm"], why: `the DaemonSet controller must update the DaemonSet's status ${HOUSEKEEPING}` },
  // CR-06d: only kubelets and the break-glass groups request tokens for the Runner ServiceAccount.
  {
    kind: "expect",
    request: "token",
    who: ["kubelet"],
    expected: "allow",
    why: "kubelets mint the Runner's projected token; without it the Runner cannot start (CR-06d)",
  },
  {
    kind: "expect",
    request: "token",
    who: ["ordinary", "noGroups", "dsController", "nsController", "gc", "tokenOthers"],
    expected: "deny",
    why: "anyone who can mint the Runner's token can enroll as a Runner; CR-06d reserves it to kubelets and the break-glass groups",
  },
];
