// Renders the Rootpilot runner: a pure function from validated values to
// objects. Namespace (optional), ServiceAccount, Deployment, NetworkPolicy.
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ServiceAccount } from "kubernetes-types/core/v1";
import { recommendedLabels, selectorLabels, type AppIdentity } from "../../k8s/labels.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import { dnsEgress, egressAllowRules, namespaceObject, networkPolicyObject } from "../../k8s/workload.ts";
import { podSpec } from "./pod.ts";
import { IRSA_ROLE_ANNOTATION } from "./interface.ts";
import type { RootpilotRunnerValues } from "./values.ts";

export function rootpilotIdentity(v: RootpilotRunnerValues): AppIdentity {
  return { name: "rootpilot-runner", instance: v.name, component: "runner", partOf: "rootpilot", image: v.image };
}

export function renderRootpilotRunner(v: RootpilotRunnerValues): K8sObject[] {
  const app = rootpilotIdentity(v);
  const labels = recommendedLabels(app);
  const objects: K8sObject[] = [];
  if (v.createNamespace) objects.push(namespaceObject(v.namespace, "restricted", labels));
  objects.push(serviceAccount(v, labels), deployment(v, app, labels), networkPolicy(v, app, labels));
  return objects;
}

function serviceAccount(v: RootpilotRunnerValues, labels: Record<string, string>): ServiceAccount & K8sObject {
  const irsa = v.attestation.provider === "eks" ? { annotations: { [IRSA_ROLE_ANNOTATION]: v.attestation.roleArn } } : {};
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: v.serviceAccount, namespace: v.namespace, labels, ...irsa },
    automountServiceAccountToken: false,
  };
}

function deployment(v: RootpilotRunnerValues, app: AppIdentity, labels: Record<string, string>): Deployment & K8sObject {
  const annotations = v.image.tag ? { annotations: { "rigging.dev/image-tag": v.image.tag } } : {};
  const selector = selectorLabels(app);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: v.name, namespace: v.namespace, labels, ...annotations },
    spec: {
      replicas: v.replicas,
      selector: { matchLabels: selector },
      // A new replica starts before an old one drains, so capacity holds.
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels, ...annotations },
        spec: podSpec(v, selector),
      },
    },
  };
}

function networkPolicy(v: RootpilotRunnerValues, app: AppIdentity, labels: Record<string, string>): K8sObject {
  // RP-08: no ingress rule; egress to DNS, the control plane and egressAllow.
  const egress = [dnsEgress(), ...egressAllowRules([v.controlPlane, ...v.egressAllow])];
  return networkPolicyObject({ name: v.name, namespace: v.namespace, labels, selector: selectorLabels(app), egress });
}
