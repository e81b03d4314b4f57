// Keys people reach for that the runner must never get, refused with their
// requirement (RP-02, RP-05, RP-07).
import { z } from "zod";
import { posix } from "node:path";
import { once, refineBy, refused, tagged, type IssueSink } from "../../values/values.ts";
import { RP } from "./requirements.ts";
import { STATIC_AWS_ENV } from "./interface.ts";

/** RP-02: probes, ports and Services. */
export const listenerGuards = once(() => ({
  probes: refused("RP-02", "is not a values key: the runner has no probes", RP["RP-02"].fix),
  livenessProbe: refused("RP-02", "is not a values key: the runner has no probes", RP["RP-02"].fix),
  readinessProbe: refused("RP-02", "is not a values key: the runner has no probes", RP["RP-02"].fix),
  startupProbe: refused("RP-02", "is not a values key: the runner has no probes", RP["RP-02"].fix),
  ports: refused("RP-02", "is not a values key: the runner has no container port", RP["RP-02"].fix),
  containerPort: refused("RP-02", "is not a values key: the runner has no container port", RP["RP-02"].fix),
  service: refused("RP-02", "is not a values key: no Service is rendered for the runner", RP["RP-02"].fix),
}));

const NO_PVC =
  "remove it: the runner is cattle and holds no durable state; the learned store is :memory: by default, and learnedStorePath puts a cache (not a source of truth) on an emptyDir";

/** RP-05: anything that asks for a PersistentVolumeClaim. */
export const persistenceGuards = once(() => ({
  learnedStore: refused("RP-05", "is not a values key: no PersistentVolumeClaim is ever rendered", NO_PVC),
  persistence: refused("RP-05", "is not a values key: no PersistentVolumeClaim is ever rendered", NO_PVC),
  persistentVolumeClaim: refused("RP-05", "is not a values key: no PersistentVolumeClaim is ever rendered", NO_PVC),
  volumeClaimTemplates: refused("RP-05", "is not a values key: no PersistentVolumeClaim is ever rendered", NO_PVC),
  storageClassName: refused("RP-05", "is not a values key: no PersistentVolumeClaim is ever rendered", NO_PVC),
}));

const NO_STATIC_KEYS =
  "remove it and rotate the key: credentials resolve through workload identity (IRSA on EKS, RUNNER_AWS_CRED_MODE=chain), never static keys in values or manifests (G-04)";

/** RP-07: static AWS credentials, at every level where a values file could hold them. */
export const staticKeyGuards = once(
  () =>
    Object.fromEntries(
      ["accessKeyId", "secretAccessKey", "sessionToken", "awsAccessKeyId", "awsSecretAccessKey", "credentials", ...STATIC_AWS_ENV].map((key) => [
        key,
        refused("RP-07", "is a static AWS credential", NO_STATIC_KEYS),
      ]),
    ) as Record<string, ReturnType<typeof refused>>,
);

/** `env` is owned by the renderer; static AWS keys in it get RP-07, the rest G-01. */
export const envGuard = once(() =>
  refineBy(z.record(z.string(), z.unknown()), refuseEnv).optional().meta({ description: "Not accepted: the renderer writes the runner's environment" }),
);

/** Refuses any `env`, naming the static AWS keys in it (RP-07). */
export function refuseEnv(env: Record<string, unknown>, ctx: IssueSink): void {
  for (const name of Object.keys(env)) {
    if ((STATIC_AWS_ENV as readonly string[]).includes(name))
      ctx.addIssue({ code: "custom", path: [name], message: tagged("RP-07", "is a static AWS credential", NO_STATIC_KEYS) });
  }
  ctx.addIssue({
    code: "custom",
    message: tagged(
      "G-01",
      "is not a values key",
      "remove it: the renderer writes the runner's environment from the values keys (`rigging schema RootpilotRunner` lists them)",
    ),
  });
}

/** Mount paths no pod volume may take. */
const SYSTEM_ROOTS = ["/proc", "/sys", "/dev", "/etc"];

/** Why `path` cannot be a file the runner reads or writes on a volume, if it cannot. */
export function podFilePathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return "is not an absolute path";
  if (posix.normalize(path) !== path || path.endsWith("/")) return "is not a normalized file path";
  if (posix.dirname(path) === "/") return "is directly under /, where no volume can be mounted";
  const under = SYSTEM_ROOTS.find((root) => path.startsWith(`${root}/`));
  if (under) return `is under ${under}`;
  return undefined;
}

export function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}
