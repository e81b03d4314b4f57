// Workload pieces every profile shares: security context (G-06), Namespace
// (G-10), resources (G-08) and NetworkPolicy parts.
import type { Namespace, ResourceRequirements, SecurityContext } from "kubernetes-types/core/v1";
import type { NetworkPolicy, NetworkPolicyEgressRule, NetworkPolicyIngressRule, NetworkPolicyPeer } from "kubernetes-types/networking/v1";
import type { EgressRule, Resources } from "../values/common-values.ts";
import { ipFamily } from "./ip.ts";
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

/** A NetworkPolicy with both types, so whatever is not allowed is denied. */
export function networkPolicyObject(p: {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  selector: Record<string, string>;
  ingress?: NetworkPolicyIngressRule[];
  egress: NetworkPolicyEgressRule[];
}): NetworkPolicy & K8sObject {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: p.name, namespace: p.namespace, labels: p.labels },
    spec: {
      podSelector: { matchLabels: p.selector },
      policyTypes: ["Ingress", "Egress"],
      ...(p.ingress ? { ingress: p.ingress } : {}),
      egress: p.egress,
    },
  };
}

/** An ipBlock peer for an IP literal host, or undefined for a name. */
export function ipLiteralPeer(host: string): NetworkPolicyPeer | undefined {
  const family = ipFamily(host);
  return family === 0 ? undefined : { ipBlock: { cidr: `${host}/${family === 4 ? 32 : 128}` } };
}
