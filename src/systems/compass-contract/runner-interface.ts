// What compass-runner reads (flags, variables), each with its upstream source
// and how rigging sets it: the Runner's rules and renderer read it, and so does
// `diff`, which reads a Runner container's Server address, CA and name.
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
