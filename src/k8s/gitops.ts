// The identity a GitOps controller applies an object's manifests as, from the
// object that tells it to: a Flux Kustomization or HelmRelease, an Argo CD
// Application or ApplicationSet. Admission policies see that identity.
import { dig } from "./access.ts";
import { DNS1123_SUBDOMAIN, serviceAccountIdentity } from "./names.ts";
import type { K8sObject } from "./objects.ts";

export interface Applier {
  /** What applies, as people name it: `Flux Kustomization flux-system/apps (clusters/prod/apps.yaml)`. */
  who: string;
  user: string;
  groups: string[];
  /** What the identity rests on that the manifests cannot show. */
  assuming: string;
}

/** Flux's two appliers by the group of the object that drives them. */
const FLUX: Record<string, string> = { "kustomize.toolkit.fluxcd.io": "kustomize-controller", "helm.toolkit.fluxcd.io": "helm-controller" };

/** The applier `object` configures, or undefined when it is none. */
export function applierOf(object: K8sObject, file: string): Applier | undefined {
  const group = typeof object.apiVersion === "string" ? object.apiVersion.split("/")[0] : "";
  const namespace = typeof object.metadata?.namespace === "string" ? object.metadata.namespace : undefined;
  const name = `${object.kind} ${namespace ? `${namespace}/` : ""}${object.metadata?.name ?? ""} (${file})`;
  const controller = FLUX[group];
  if (controller && (object.kind === "Kustomization" || object.kind === "HelmRelease")) {
    const account = dig(object, ["spec", "serviceAccountName"]);
    // Flux impersonates the named ServiceAccount in the object's own namespace.
    if (typeof account === "string" && DNS1123_SUBDOMAIN.test(account))
      return { who: `Flux ${name}`, ...serviceAccountIdentity(namespace ?? "flux-system", account), assuming: "Flux impersonates spec.serviceAccountName" };
    return {
      who: `Flux ${name}`,
      ...serviceAccountIdentity("flux-system", controller),
      assuming: `the ${controller} runs in flux-system, as Flux installs it, without --default-service-account`,
    };
  }
  if (group === "argoproj.io" && (object.kind === "Application" || object.kind === "ApplicationSet")) {
    const home = namespace ?? "argocd";
    return {
      who: `Argo CD ${name}`,
      ...serviceAccountIdentity(home, "argocd-application-controller"),
      assuming: `Argo CD runs in ${home}, where its Applications live, without an AppProject's destinationServiceAccounts impersonation`,
    };
  }
  return undefined;
}
