// A light head (src/seams.ts, KIND_HEADS): the folder's chunk loads on first use, not at start.
import { defineValuesKind } from "../values-kind.ts";
import { renderRootpilotRunner } from "./render.ts";
import type { RootpilotRunnerValues } from "./values.ts";
import { rootpilotRunnerSchema } from "./values.ts";

/** Printed after a render: where readiness shows, since there is no probe (RP-02). */
function afterRender(v: RootpilotRunnerValues): string[] {
  const notes = [
    "The runner has no probes and listens on no port (RP-02). A replica is ready when its log shows `boot: ready`",
    `and the control plane's Fleet view shows it connected: kubectl -n ${v.namespace} logs deploy/${v.name} | grep 'boot: ready'`,
  ];
  if (v.attestation.provider === "eks") {
    notes.push(
      `IRSA (RP-06): the role ${v.attestation.roleArn} must trust the cluster's OIDC provider for system:serviceaccount:${v.namespace}:${v.serviceAccount},`,
      "and egressAllow must reach AWS STS (and Secrets Manager, for secretStore.mode aws) or their VPC endpoints.",
    );
  }
  return notes;
}

export const rootpilotRunnerKind = defineValuesKind({
  kind: "RootpilotRunner",
  summary: "The Rootpilot runner: stateless, outbound-only replicas that attest per provider",
  schema: () => rootpilotRunnerSchema(),
  render: (v) => renderRootpilotRunner(v),
  notes: afterRender,
  example: "examples/rootpilot-gke.yaml",
});
