// CR-06 bad input: an `admission.*` entry that no authenticator can give
// for its list, or that holds a quote, backslash or control character, is
// refused with the requirement ID and a fix.
import { describe, expect, it } from "vitest";
import { identitySchema, type IdentityList } from "../../../src/systems/compass-runner/admission-identity.ts";

const SEPARATOR = "\u001f";

/** [id, problem, fix] of the first issue, or undefined when accepted. */
function refusal(list: IdentityList, value: unknown): string[] | undefined {
  const result = identitySchema(list).safeParse(value);
  return result.success ? undefined : result.error.issues[0].message.split(SEPARATOR);
}

describe("admission identities that are accepted", () => {
  it.each([
    ["controllers", "system:serviceaccount:kube-system:daemon-set-controller"],
    ["controllers", "system:kube-controller-manager"],
    ["deployers", "system:serviceaccount:flux-system:kustomize-controller"],
    ["deployers", "system:serviceaccount:argocd:argocd-application-controller"],
    ["deployers", "kubernetes-admin"],
    ["deployers", "jane@example.com"],
    ["deployers", "oidc:https://issuer.example.com#0a1b2c"],
    ["deployers", "arn:aws:iam::123456789012:role/deploy"],
    ["deployers", "Jörg Müller"],
    ["breakGlassGroups", "system:masters"],
    ["breakGlassGroups", "oidc:platform-oncall"],
    ["breakGlassGroups", "system:serviceaccounts:break-glass"],
  ] as [IdentityList, string][])("%s: %s", (list, name) => {
    expect(refusal(list, name)).toBeUndefined();
  });
});

describe("admission identities that are refused (CR-06)", () => {
  it.each([
    ["deployers", "", "is empty"],
    ["deployers", "x".repeat(513), "is longer than 512 characters"],
    ["deployers", "it's-me", "contains a quote"],
    ["deployers", 'say "hi"', "contains a quote"],
    ["deployers", "a`b", "contains a quote"],
    ["controllers", "domain\\user", "contains a backslash"],
    ["controllers", "line\nbreak", "contains a control character"],
    ["controllers", "nul\u0000", "contains a control character"],
    ["controllers", "del\u007f", "contains a control character"],
    ["controllers", "sep\u2028", "contains a control character"],
    ["deployers", " jane", "starts or ends with white space"],
    ["deployers", "jane ", "starts or ends with white space"],
    ["controllers", "system:serviceaccount:kube-system", "is not a ServiceAccount user name: system:serviceaccount:<namespace>:<name>"],
    ["controllers", "system:serviceaccount:Kube-System:daemon-set-controller", "is not a ServiceAccount user name: system:serviceaccount:<namespace>:<name>"],
    ["controllers", "system:serviceaccount:kube-system:a:b", "is not a ServiceAccount user name: system:serviceaccount:<namespace>:<name>"],
    ["breakGlassGroups", "system:serviceaccounts:", "is not a ServiceAccount group name: system:serviceaccounts:<namespace>"],
    ["controllers", "system:node:", "is not a node user name: system:node:<node name>"],
    ["controllers", "system:masters", "is a group name, not a user name"],
    ["deployers", "system:serviceaccounts:flux-system", "is a group name, not a user name"],
    ["deployers", "system:authenticated", "is a group name, not a user name"],
    ["deployers", "system:anonymous", "is the anonymous user: anyone without credentials"],
    ["breakGlassGroups", "system:serviceaccount:kube-system:default", "is a user name, not a group"],
    ["breakGlassGroups", "system:kube-controller-manager", "is a user name, not a group"],
    ["breakGlassGroups", "system:authenticated", "would make every member of a built-in group a break-glass member"],
    ["breakGlassGroups", "system:unauthenticated", "would make every member of a built-in group a break-glass member"],
    ["breakGlassGroups", "system:serviceaccounts", "would make every member of a built-in group a break-glass member"],
    ["breakGlassGroups", "system:nodes", "would make every member of a built-in group a break-glass member"],
  ] as [IdentityList, string, string][])("%s: %j", (list, name, problem) => {
    const [id, message, fix] = refusal(list, name) ?? [];
    expect([id, message]).toEqual(["CR-06", problem]);
    expect(fix).toMatch(list === "breakGlassGroups" ? /groups/ : /user names/);
  });

  it("refuses a value that is not a string with the requirement ID", () => {
    expect(refusal("controllers", 42)?.[0]).toBe("CR-06");
  });

  it("refuses an overlong entry by its length before looking inside it", () => {
    expect(refusal("deployers", `system:serviceaccount:${"a".repeat(1 << 20)}`)?.[1]).toBe("is longer than 512 characters");
  });
});
