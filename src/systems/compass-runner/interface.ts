// The Runner's own facts (mounted paths, labels, limits, names it must never
// carry) beside the settings it reads, which are the Compass contract's, re-exported
// here; the renderer, the rules and the docs import this, rules never the renderer.
export {
  RUNNER_READING,
  RUNNER_SETTINGS,
  type Setting,
  settingName,
} from "../compass-contract/runner-interface.ts";

/** Names compass-runner reads that rigging never renders; a hand-written Runner may set them. */
export const OTHER_RUNNER_VARIABLES = [
  "COMPASS_RUNTIME_BACKEND",
  "COMPASS_MICROVM_VMM",
  "COMPASS_MICROVM_VIRTIOFSD",
  "COMPASS_MICROVM_KERNEL",
  "COMPASS_MICROVM_ROOTFS",
  "COMPASS_MICROVM_INITRD",
  "COMPASS_MICROVM_IMAGE_MANIFEST",
  "COMPASS_AGENT_MODEL",
] as const;

/** Names a rendered Runner must never carry, and why (CR-17, CR-20). */
export const FORBIDDEN_SETTINGS = [
  {
    flag: "--runner-id",
    env: "COMPASS_RUNNER_ID",
    why: "with a token file the Server assigns the Runner ID at enrollment, and checks a non-empty one against it (CR-17)",
  },
  { env: "COMPASS_RUNNER_TOKEN", why: "a static token beside the token file makes the Runner refuse to start: the two sources are mutually exclusive (CR-20)" },
  { flag: "--image", env: "COMPASS_AGENT_IMAGE", why: "the microVM backend runs the agent from the guest root filesystem and refuses an agent image (CR-20)" },
] as const;

/** The projected token: volume, directory, file and audience (CR-03). */
export const TOKEN_VOLUME = "compass-runner-token";
export const TOKEN_DIR = "/var/run/secrets/compass/runner";
export const TOKEN_FILE = "token";
export const TOKEN_PATH = `${TOKEN_DIR}/${TOKEN_FILE}`;
export const RUNNER_AUDIENCE = "compass-runner";
export const TOKEN_MIN_SECONDS = 600;
export const TOKEN_MAX_SECONDS = 4294967296;
/** The upstream tool's default for both the token and the Server's maximum. */
export const DEFAULT_TOKEN_SECONDS = 600;

/** Mount points of the two host trees inside the pod, as upstream mounts them (CR-11). */
export const SESSIONS_VOLUME = "session-volumes";
export const SESSIONS_MOUNT = "/var/lib/compass/sessions";
export const RUNTIME_VOLUME = "runner-runtime";
export const RUNTIME_MOUNT = "/run/compass";
/** P8: the quota subdirectory of the session mount, not the mount point. */
export const VOLUME_ROOT = `${SESSIONS_MOUNT}/volumes`;
export const RUN_ROOT = `${RUNTIME_MOUNT}/microvm`;
/** The boot canary makes its temporary directory under $TMPDIR or /tmp. */
export const TMP_MOUNT = "/tmp";
export const TMP_SIZE = "256Mi";
export const CA_DIR = "/etc/compass/server-ca";
export const CA_FILE = "ca.crt";
export const CA_PATH = `${CA_DIR}/${CA_FILE}`;

/** The image's USER (distroless nonroot); both host trees are owned by it (CR-11). */
export const RUNNER_UID = 65532;
export const RUNNER_GID = 65532;
export const CONTAINER_NAME = "compass-runner";
export const APP_NAME = "compass-runner";
export const DEFAULT_SECCOMP_PROFILE = "profiles/compass-runner.json";

/** Upstream refuses a rollout that could run two Runners for one node ID (CR-07). */
export const MAX_UNAVAILABLE = 1;
export const MAX_SURGE = 0;
export const PRIORITY_MIN = 0;
export const PRIORITY_MAX = 1_000_000_000;
/** The kubelet's ceiling on terminationGracePeriodSeconds (an int32). */
export const GRACE_MAX = 2_147_483_647;

export const HOSTNAME_LABEL = "kubernetes.io/hostname";
export const ARCH_LABEL = "kubernetes.io/arch";
export const OS_LABEL = "kubernetes.io/os";

/** Host trees a Runner must never mount (CR-11). */
export const FORBIDDEN_HOST_ROOTS = ["/dev", "/proc", "/sys", "/etc", "/var/run/secrets"] as const;

/** The numbers the upstream tool derives from capacity (CR-19). */
export interface Capacity {
  sessionCapacity: number;
  guestMemoryMiB: number;
  guestCpus: number;
  runnerOverheadMiB: number;
  perSessionReapSeconds: number;
}

export function derived(c: Capacity): { memoryMiB: number; cpu: number; graceSeconds: number } {
  return {
    memoryMiB: c.sessionCapacity * c.guestMemoryMiB + c.runnerOverheadMiB,
    cpu: c.sessionCapacity * c.guestCpus,
    graceSeconds: c.perSessionReapSeconds * c.sessionCapacity,
  };
}

/** Keys only a file in the upstream tool's shape has: such a file needs no `kind:`. */
export const UPSTREAM_SHAPE_KEYS = [
  "serverAddr",
  "sessionCapacity",
  "guestMemoryMiB",
  "perSessionReapSeconds",
  "priorityClassValue",
  "kvmResourceName",
] as const;
