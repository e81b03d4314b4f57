// Pieces every profile's workload shares: the hardened container security
// context (G-06), the Namespace with Pod Security labels (G-10), resources
// (G-08) and the common NetworkPolicy parts.
import type { Namespace, ResourceRequirements, SecurityContext } from "kubernetes-types/core/v1";
import type { NetworkPolicyEgressRule, NetworkPolicyPeer } from "kubernetes-types/networking/v1";
import type { EgressRule, Resources } from "./common-values.ts";
import type { K8sObject } from "./objects.ts";

export function hardenedContainer(): SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ["ALL"] },
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
  };
}

export type PodSecurityLevel = "restricted" | "baseline" | "privileged";

export function namespaceObject(name: string, level: PodSecurityLevel, labels: Record<string, string>): Namespace & K8sObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      labels: {
        ...labels,
        "pod-security.kubernetes.io/enforce": level,
        "pod-security.kubernetes.io/audit": level,
        "pod-security.kubernetes.io/warn": level,
      },
    },
  };
}

export function resourceRequirements(resources: Resources, extended: Record<string, string> = {}): ResourceRequirements {
  const limits: Record<string, string> = { memory: resources.limits.memory };
  if (resources.limits.cpu !== undefined) limits.cpu = resources.limits.cpu;
  return {
    requests: { cpu: resources.requests.cpu, memory: resources.requests.memory, ...extended },
    limits: { ...limits, ...extended },
  };
}

/** DNS through the cluster resolver (kube-dns / CoreDNS in kube-system). */
export function dnsEgress(): NetworkPolicyEgressRule {
  return {
    to: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } }, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } }],
    ports: [
      { protocol: "UDP", port: 53 },
      { protocol: "TCP", port: 53 },
    ],
  };
}

export function egressAllowRules(allow: readonly EgressRule[]): NetworkPolicyEgressRule[] {
  return allow.map((rule) => {
    const peer: NetworkPolicyPeer = { ipBlock: { cidr: rule.cidr } };
    return rule.ports ? { to: [peer], ports: rule.ports.map((p) => ({ protocol: p.protocol, port: p.port })) } : { to: [peer] };
  });
}
