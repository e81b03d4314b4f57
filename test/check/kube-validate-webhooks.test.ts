// A ValidatingWebhookConfiguration (a MutatingWebhookConfiguration alike) as kube-apiserver validates it
// on create: an object it accepts and one it refuses for each check.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";

const hook = (extra: Obj = {}): Obj => ({
  name: "validate.policy.example.com",
  clientConfig: { service: { name: "policy", namespace: "policy-system", path: "/validate", port: 443 } },
  rules: [{ operations: ["CREATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"] }],
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  ...extra,
});
const config = (...webhooks: Obj[]): Obj => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: "policy" },
  webhooks,
});
const rule = (r: Obj) => config(hook({ rules: [{ operations: ["CREATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"], ...r }] }));
const url = (u: string) => config(hook({ clientConfig: { url: u } }));
const W = "webhooks.0";

describe("a webhook (validateValidatingWebhook)", () => {
  it("has a fully qualified name, once in the configuration", () => {
    accepts(config(hook()));
    accepts({ ...config(hook()), kind: "MutatingWebhookConfiguration" });
    refuses(config(hook({ name: "validate" })), `${W}.name`, "at least three labels");
    refuses(config(hook(), hook()), "webhooks.1.name", "used twice");
  });

  it("declares no side effects, a timeout of 1-30 seconds and a review version the server reads", () => {
    refuses(config(hook({ sideEffects: undefined })), `${W}.sideEffects`, "None or NoneOnDryRun");
    refuses(config(hook({ sideEffects: "Some" })), `${W}.sideEffects`, "declares None or NoneOnDryRun");
    refuses(config(hook({ timeoutSeconds: 31 })), `${W}.timeoutSeconds`, "outside 1-30");
    refuses(config(hook({ admissionReviewVersions: [] })), `${W}.admissionReviewVersions`, "needs admissionReviewVersions");
    refuses(config(hook({ admissionReviewVersions: ["v2"] })), `${W}.admissionReviewVersions`, "must include v1 or v1beta1");
    refuses(config(hook({ admissionReviewVersions: ["v1", "v1"] })), `${W}.admissionReviewVersions.1`, "given twice");
  });

  it("calls exactly one of an https URL (host, no user, query or fragment) and a service (port, path of subdomains)", () => {
    accepts(url("https://policy.example.com/validate"));
    refuses(config(hook({ clientConfig: {} })), `${W}.clientConfig`, "exactly one of url and service");
    refuses(url("http://policy.example.com/validate"), `${W}.clientConfig.url`, "'https' is the only scheme");
    refuses(url("https:///validate"), `${W}.clientConfig.url`, "names no host");
    refuses(url("https://user@policy.example.com/"), `${W}.clientConfig.url`, "user information");
    refuses(url("https://policy.example.com/v?x=1"), `${W}.clientConfig.url`, "no query");
    refuses(url("https://policy.example.com/v#f"), `${W}.clientConfig.url`, "no fragment");
    const service = (s: Obj) => config(hook({ clientConfig: { service: { name: "policy", namespace: "policy-system", ...s } } }));
    refuses(service({ port: 0 }), `${W}.clientConfig.service.port`, "outside 1-65535");
    refuses(service({ path: "validate" }), `${W}.clientConfig.service.path`, "must start with '/'");
    refuses(service({ path: "/a//b" }), `${W}.clientConfig.service.path`, "none empty");
  });
});

describe("its rules (validateRuleWithOperations, validateResources)", () => {
  it("name operations, groups, versions and resources, '*' alone", () => {
    accepts(rule({ resources: ["pods", "pods/log", "*/scale"] }));
    refuses(rule({ operations: [] }), `${W}.rules.0.operations`, "needs its operations");
    refuses(rule({ operations: ["*", "CREATE"] }), `${W}.rules.0.operations`, "name no other");
    refuses(rule({ apiGroups: ["*", "apps"] }), `${W}.rules.0.apiGroups`, "name no other");
    refuses(rule({ apiVersions: [""] }), `${W}.rules.0.apiVersions.0`, "cannot be empty");
    refuses(rule({ resources: ["*/*", "pods"] }), `${W}.rules.0.resources`, "with '*/*'");
    refuses(rule({ resources: ["*", "pods"] }), `${W}.rules.0.resources`, "with '*' among the resources");
    refuses(rule({ resources: ["pods/*", "pods/log"] }), `${W}.rules.0.resources.1`, "with pods/* present");
    accepts(rule({ resources: ["*", "pods/log"] }));
  });
});
