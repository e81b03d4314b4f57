// The runner's pod: read-only root (G-06), so every written path is an emptyDir (RP-01, RP-05).
import { posix } from "node:path";
import type { EnvVar, PodSpec, Volume, VolumeMount } from "kubernetes-types/core/v1";
import { pinned } from "../../values/image.ts";
import { hardenedContainer, resourceRequirements } from "../../k8s/workload.ts";
import { isUnder } from "./guards.ts";
import { ATTESTATION_MODES, CONTAINER_NAME, ENV, GKE_TOKEN_PATH, HOME_DIR, NODE_GID, NODE_UID, TMP_DIR, gracePeriodFor } from "./interface.ts";
import type { RootpilotRunnerValues } from "./values.ts";

/** Volume names, shared with the rules' messages and the docs. */
export const VOLUME = { tmp: "tmp", home: "home", token: "rootpilot-token", learnedStore: "learned-store" } as const;

/** terminationGracePeriodSeconds as rendered: the explicit value, or the drain plus headroom (RP-03). */
export function gracePeriod(v: RootpilotRunnerValues): number {
  return v.terminationGracePeriodSeconds ?? gracePeriodFor(v.drainTimeoutMs);
}

/** The directory of the learned store when it needs an emptyDir of its own (not under /tmp or $HOME). */
export function learnedStoreDir(v: RootpilotRunnerValues): string | undefined {
  if (!v.learnedStorePath) return undefined;
  const dir = posix.dirname(v.learnedStorePath);
  return isUnder(dir, TMP_DIR) || isUnder(dir, HOME_DIR) ? undefined : dir;
}

function environment(v: RootpilotRunnerValues): EnvVar[] {
  const env: EnvVar[] = [{ name: ENV.home, value: HOME_DIR }];
  const a = v.attestation;
  env.push({ name: ENV.attestationMode, value: ATTESTATION_MODES[a.provider] });
  if (a.provider === "gke" && a.tokenPath !== GKE_TOKEN_PATH) env.push({ name: ENV.gkeTokenPath, value: a.tokenPath });
  if (a.provider === "eks") env.push({ name: ENV.awsRegion, value: a.region });
  env.push({ name: ENV.drainTimeout, value: String(v.drainTimeoutMs) });
  env.push({ name: ENV.flushInterval, value: String(v.learnedFlushIntervalMs) });
  if (v.learnedStorePath) env.push({ name: ENV.learnedStorePath, value: v.learnedStorePath });
  const store = v.secretStore;
  if (store?.mode === "aws") env.push({ name: ENV.secretStoreMode, value: "aws" }, { name: ENV.awsCredMode, value: "chain" });
  else if (store?.mode === "vault") env.push({ name: ENV.secretStoreMode, value: "vault" });
  // RP-07: settings the Rootpilot Kubernetes guide does not name, as the installer names them.
  for (const [name, value] of Object.entries(store?.settings ?? {})) env.push({ name, value });
  if (v.otel) env.push({ name: ENV.otelEndpoint, value: v.otel.endpoint });
  return env;
}

function storage(v: RootpilotRunnerValues): { volumes: Volume[]; mounts: VolumeMount[] } {
  const volumes: Volume[] = [
    { name: VOLUME.tmp, emptyDir: { sizeLimit: "256Mi" } },
    { name: VOLUME.home, emptyDir: { sizeLimit: "64Mi" } },
  ];
  const mounts: VolumeMount[] = [
    { name: VOLUME.tmp, mountPath: TMP_DIR },
    { name: VOLUME.home, mountPath: HOME_DIR },
  ];
  const a = v.attestation;
  if (a.provider === "gke") {
    volumes.push({
      name: VOLUME.token,
      projected: {
        sources: [{ serviceAccountToken: { audience: a.audience, expirationSeconds: a.expirationSeconds, path: posix.basename(a.tokenPath) } }],
      },
    });
    mounts.push({ name: VOLUME.token, mountPath: posix.dirname(a.tokenPath), readOnly: true });
  }
  const storeDir = learnedStoreDir(v);
  if (storeDir) {
    // RP-05: a cache on an emptyDir, never a claim; it dies with the pod.
    volumes.push({ name: VOLUME.learnedStore, emptyDir: { sizeLimit: "1Gi" } });
    mounts.push({ name: VOLUME.learnedStore, mountPath: storeDir });
  }
  return { volumes, mounts };
}

export function podSpec(v: RootpilotRunnerValues, selector: Record<string, string>): PodSpec {
  const { volumes, mounts } = storage(v);
  return {
    serviceAccountName: v.serviceAccount,
    // The runner calls no Kubernetes API; its only token is the projected
    // enrollment token (GKE) or the one IRSA's webhook projects (EKS).
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    terminationGracePeriodSeconds: gracePeriod(v),
    ...(Object.keys(v.nodeSelector).length > 0 ? { nodeSelector: v.nodeSelector } : {}),
    ...(v.tolerations.length > 0 ? { tolerations: v.tolerations } : {}),
    // Replicas are interchangeable; spread them so one node loss drains few.
    topologySpreadConstraints: [
      { maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: selector } },
    ],
    securityContext: {
      runAsUser: NODE_UID,
      runAsGroup: NODE_GID,
      // Makes the projected token and the emptyDirs readable by node's group.
      fsGroup: NODE_GID,
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    },
    containers: [
      {
        // No command or args: the image's own entrypoint runs the runner.
        // No ports and no probes: it listens on nothing (RP-02).
        name: CONTAINER_NAME,
        image: pinned(v.image),
        env: environment(v),
        resources: resourceRequirements(v.resources),
        securityContext: hardenedContainer(),
        volumeMounts: mounts,
      },
    ],
    volumes,
  };
}
