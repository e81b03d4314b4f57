// Where the Runner may connect (CR-15): DNS, the Server, egressAllow.
import { ipLiteralPeer } from "../../k8s/workload.ts";
import type { NetworkPolicyEgressRule } from "kubernetes-types/networking/v1";
import { SERVER_APP, SERVER_TLS_PORT } from "../compass-contract/ports.ts";

/** The egress rule for the Server when its address is an IP or an in-cluster Service; a public name belongs in egressAllow (CR-15). */
export function serverEgress(address: string): NetworkPolicyEgressRule | undefined {
  const url = new URL(address);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || 443);
  const peer = ipLiteralPeer(host);
  if (peer) return { to: [peer], ports: [{ protocol: "TCP", port }] };
  const service = inClusterService(host);
  if (service) {
    return {
      to: [
        {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": service.namespace } },
          podSelector: { matchLabels: { "app.kubernetes.io/name": SERVER_APP } },
        },
      ],
      // Policies see the pod's port after the Service translates 443.
      ports: [{ protocol: "TCP", port: SERVER_TLS_PORT }],
    };
  }
  return undefined;
}

export function inClusterService(host: string): { name: string; namespace: string } | undefined {
  const match = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(\.cluster\.local)?$/.exec(host);
  return match ? { name: match[1], namespace: match[2] } : undefined;
}
