// What compass-runner reads (flags, variables, mounted paths), kept once for
// the renderer, the rules and the docs; rules import this, never the renderer.
import type { Reading } from "../../k8s/flag-or-env.ts";

/** Where a name comes from upstream, and whether upstream has shipped it. */
export interface Source {
  /** Upstream repository and path, or the design that plans it: what users read. */
  from: string;
  /** The upstream commit the facts were read at: data the tests check, never shown to users. */
  commit?: string;
  status: "implemented" | "designed";
  /** For a designed name: the Compass Server-on-Kubernetes design's task it needs; rendered only when its value opts in (CS-14). */
  task?: "P4" | "P8" | "P9";
}

/** One setting the Runner reads: by flag, by variable, or by either (a non-empty flag wins). */
export interface Setting extends Source {
  flag?: string;
  env?: string;
  meaning: string;
  /** What rigging writes, when it writes this setting. */
  rendered?: string;
  /** A Go bool flag: alone it means true, and it never takes the next word. */
  bool?: boolean;
}

/** The released Runner, read at this upstream commit. */
const MAIN = { from: "RigelBuild/compass go/cmd/compass-runner/main.go", commit: "c0c4e3c5" } as const;

/** Every flag and variable a rendered Runner container may carry (CR-20). */
export const RUNNER_SETTINGS = {
  server: {
    rendered: "serverAddr",
    flag: "--server",
    env: "COMPASS_SERVER_ADDR",
    meaning: "the Server's https:// address (CR-02)",
    ...MAIN,
    status: "implemented",
  },
  tokenFile: {
    rendered: "/var/run/secrets/compass/runner/token",
    flag: "--token-file",
    env: "COMPASS_RUNNER_TOKEN_FILE",
    meaning: "the projected ServiceAccount token, re-read on every call (CR-03)",
    ...MAIN,
    status: "implemented",
  },
  ca: {
    rendered: "/etc/compass/server-ca/ca.crt (serverCA)",
    flag: "--ca",
    env: "COMPASS_RUNNER_CA",
    meaning: "PEM CA that replaces the system roots for the Server's TLS (CR-14)",
    ...MAIN,
    status: "implemented",
  },
  serverName: {
    rendered: "serverName, only with designed.P9",
    flag: "--server-name",
    meaning: "TLS name the Runner verifies, when it differs from the host dialled (CR-14, P9)",
    from: "the Compass Server-on-Kubernetes design, task P9",
    status: "designed",
    task: "P9",
  },
  egressAllow: {
    rendered: "the hosts of egressAllow",
    flag: "--egress-allow",
    meaning: "the sessions' default-deny egress allowlist: DNS names or IP literals (CR-15, D7)",
    ...MAIN,
    status: "implemented",
  },
  runRoot: {
    rendered: "/run/compass/microvm",
    flag: "--microvm-runroot",
    env: "COMPASS_MICROVM_RUNROOT",
    meaning: "per-session microVM runtime directories, on the runtime tree (CR-11)",
    ...MAIN,
    status: "implemented",
  },
  volumeRoot: {
    rendered: "/var/lib/compass/sessions/volumes",
    flag: "--microvm-volume-root",
    env: "COMPASS_MICROVM_VOLUME_ROOT",
    meaning: "session volumes: a subdirectory of the quota'd session tree, never its mount point (CR-11, P8)",
    ...MAIN,
    status: "implemented",
  },
  memoryMb: {
    rendered: "guestMemoryMiB",
    flag: "--microvm-memory-mb",
    env: "COMPASS_MICROVM_MEMORY_MB",
    meaning: "guest RAM in MiB (CR-19)",
    ...MAIN,
    status: "implemented",
  },
  cpus: { rendered: "guestCpus", flag: "--microvm-cpus", env: "COMPASS_MICROVM_CPUS", meaning: "vCPUs per guest (CR-19)", ...MAIN, status: "implemented" },
  quotaRequired: {
    rendered: "true",
    flag: "--microvm-quota-required",
    env: "COMPASS_MICROVM_QUOTA_REQUIRED",
    meaning: "refuse to start without a project quota on the session tree (CR-11)",
    ...MAIN,
    status: "implemented",
    bool: true,
  },
  otel: {
    rendered: "otel.endpoint",
    env: "OTEL_EXPORTER_OTLP_ENDPOINT",
    meaning: "OTLP endpoint metrics and traces are pushed to (CR-16)",
    ...MAIN,
    status: "implemented",
  },
} as const satisfies Record<string, Setting>;

export type RunnerSetting = keyof typeof RUNNER_SETTINGS;

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

/**
 * How compass-runner reads its settings: Go's flag package, and `orEnv`, where an empty variable is none;
 * a variable not listed may come from an `envFrom` source outside the input (not judged).
 */
export const RUNNER_READING: Reading = {
  flags: { bool: new Set(Object.values(RUNNER_SETTINGS as Record<string, Setting>).flatMap((s) => (s.flag && s.bool ? [s.flag] : []))) },
  emptyIsUnset: true,
  envFrom: true,
};

/** How a setting is written for people: `--server / COMPASS_SERVER_ADDR`. */
export function settingName(setting: { flag?: string; env?: string }): string {
  return [setting.flag, setting.env].filter(Boolean).join(" / ");
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
