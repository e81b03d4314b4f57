// The identity each GitOps controller applies as, from the object that drives it.
import { describe, expect, it } from "vitest";
import { applierOf } from "../../src/k8s/gitops.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";

const object = (apiVersion: string, kind: string, namespace: string | undefined, spec: Record<string, unknown> = {}): K8sObject => ({
  apiVersion,
  kind,
  metadata: { name: "apps", ...(namespace ? { namespace } : {}) },
  spec,
});

describe("applierOf", () => {
  it.each([
    ["kustomize.toolkit.fluxcd.io/v1", "Kustomization", "flux-system", {}, "system:serviceaccount:flux-system:kustomize-controller"],
    ["kustomize.toolkit.fluxcd.io/v1beta2", "Kustomization", undefined, {}, "system:serviceaccount:flux-system:kustomize-controller"],
    ["helm.toolkit.fluxcd.io/v2", "HelmRelease", "flux-system", {}, "system:serviceaccount:flux-system:helm-controller"],
    ["kustomize.toolkit.fluxcd.io/v1", "Kustomization", "team-a", { serviceAccountName: "deployer" }, "system:serviceaccount:team-a:deployer"],
    ["helm.toolkit.fluxcd.io/v2", "HelmRelease", "team-b", { serviceAccountName: "helm" }, "system:serviceaccount:team-b:helm"],
    // A name no ServiceAccount can have is not impersonated: the controller's own identity stands.
    ["kustomize.toolkit.fluxcd.io/v1", "Kustomization", "team-a", { serviceAccountName: "Bad Name" }, "system:serviceaccount:flux-system:kustomize-controller"],
    ["argoproj.io/v1alpha1", "Application", "argocd", {}, "system:serviceaccount:argocd:argocd-application-controller"],
    ["argoproj.io/v1alpha1", "Application", "gitops", {}, "system:serviceaccount:gitops:argocd-application-controller"],
    ["argoproj.io/v1alpha1", "ApplicationSet", undefined, {}, "system:serviceaccount:argocd:argocd-application-controller"],
  ])("%s %s in %s %j applies as %s", (apiVersion, kind, namespace, spec, user) => {
    const applier = applierOf(object(apiVersion, kind, namespace, spec), "sync.yaml");
    expect(applier?.user).toBe(user);
    expect(applier?.groups).toEqual(["system:serviceaccounts", `system:serviceaccounts:${user.split(":")[2]}`, "system:authenticated"]);
    expect(applier?.who).toContain(`${kind} ${namespace ? `${namespace}/` : ""}apps (sync.yaml)`);
  });

  it.each([
    ["kustomize.config.k8s.io/v1beta1", "Kustomization"],
    ["source.toolkit.fluxcd.io/v1", "GitRepository"],
    ["argoproj.io/v1alpha1", "AppProject"],
    ["apps/v1", "Deployment"],
  ])("%s %s drives no applier", (apiVersion, kind) => {
    expect(applierOf(object(apiVersion, kind, "flux-system"), "x.yaml")).toBeUndefined();
  });
});
