// The self-check's speed paths answer as the plain code they replace: the
// flag reader without closures or a regex, the trailing-slash trim without a
// regex, and CR-15 reading the Server's ports only when a gap asks for them.
import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { compassRunnerRules } from "../../src/systems/compass-runner/rules.ts";
import { ObjectSet } from "../../src/rules/engine.ts";
import { flagValue } from "../../src/k8s/flag-or-env.ts";
import { mountHolding } from "../../src/rules/templates.ts";
import { breathe } from "../support/breathe.ts";
import { list } from "../../src/k8s/access.ts";

/** The plain flag reader: words and paths through closures, the bare name by a regex. */
function plainFlagValue(container: Container, flag: string): { value: string; path: PropertyKey[] } | undefined {
  const bare = flag.replace(/^-+/, "");
  const command = list<unknown>(container.command);
  const args = list<unknown>(container.args);
  const fromCommand = Math.max(0, command.length - 1);
  const count = fromCommand + args.length;
  const word = (i: number) => String(i < fromCommand ? command[i + 1] : args[i - fromCommand]);
  const path = (i: number): PropertyKey[] => (i < fromCommand ? ["command", i + 1] : ["args", i - fromCommand]);
  let found: { value: string; path: PropertyKey[] } | undefined;
  for (let i = 0; i < count; i++) {
    const text = word(i);
    if (text === "--" || !text.startsWith("-") || text === "-") break;
    const body = text.slice(text.startsWith("--") ? 2 : 1);
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    if (name !== bare) {
      if (eq < 0 && i + 1 < count && !word(i + 1).startsWith("-")) i++;
      continue;
    }
    if (eq >= 0) found = { value: body.slice(eq + 1), path: path(i) };
    else if (i + 1 < count) {
      found = { value: word(i + 1), path: path(i + 1) };
      i++;
    } else found = { value: "", path: path(i) };
  }
  return found;
}

/** The plain mount lookup: every path normalized by posix (a mount path made absolute, as the kubelet does), the deepest mount wins. */
function plainMountHolding(container: Container, file: string): number {
  const clean = (path: string) => {
    const normal = posix.normalize(path);
    return normal.length > 1 ? normal.replace(/\/+$/, "") : normal;
  };
  const mounts = list<{ mountPath?: unknown }>(container.volumeMounts);
  const target = clean(file);
  let best = -1;
  let bestAt = "";
  mounts.forEach((m, i) => {
    if (typeof m?.mountPath !== "string") return;
    const at = clean(`/${m.mountPath}`);
    if (target !== at && !target.startsWith(at === "/" ? "/" : `${at}/`)) return;
    if (best < 0 || at.length > bestAt.length) [best, bestAt] = [i, at];
  });
  return best;
}

const WORDS: unknown[] = ["--server", "-server", "--server=a", "--server=", "--", "-", "run", "b", "--backend", "-backend=c", 7];
const FLAGS = ["--server", "-server", "server", "---server", "--backend", "backend", "--"];

/** Every list of up to `n` words from WORDS. */
function lists(n: number): unknown[][] {
  const out: unknown[][] = [[]];
  for (let start = 0, length = 0; length < n; length++) {
    const end = out.length;
    for (let i = start; i < end; i++) for (const w of WORDS) out.push([...out[i], w]);
    start = end;
  }
  return out;
}

describe("flagValue reads what the plain reader reads", () => {
  it("on every command and args of up to three words, split at every point, for every flag spelling", async () => {
    let compared = 0;
    for (const [index, words] of lists(3).entries()) {
      if (index % 64 === 0) await breathe();
      for (let split = 0; split <= words.length; split++) {
        const container = { name: "c", command: ["/prog", ...words.slice(0, split)], args: words.slice(split) } as Container;
        const argsOnly = { name: "c", args: words } as Container;
        for (const flag of FLAGS) {
          expect(flagValue(container, flag)).toEqual(plainFlagValue(container, flag));
          expect(flagValue(argsOnly, flag)).toEqual(plainFlagValue(argsOnly, flag));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });
});

describe("mountHolding cleans paths as the plain lookup does", () => {
  const PATHS = ["/", "//", "/a", "/a/", "/a//", "/a/b", "/a/b/", "/ab", "a", "", "/a/b/c"];
  it("for every pair of mount paths and every file", () => {
    for (const first of PATHS)
      for (const second of PATHS)
        for (const file of PATHS) {
          const container = {
            name: "c",
            volumeMounts: [
              { name: "x", mountPath: first },
              { name: "y", mountPath: second },
            ],
          } as Container;
          const found = mountHolding({ spec: { containers: [] } }, container, file);
          expect(found?.mountIndex ?? -1).toBe(plainMountHolding(container, file));
        }
  });
});

describe("CR-15 reads the Server's ports only when a gap asks for them", () => {
  const cr15 = compassRunnerRules.find((r) => r.id === "CR-15")!;
  const labels = { app: "runner" };
  const daemonSet = (containers: unknown[]): K8sObject =>
    ({
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "r", namespace: "n" },
      spec: { template: { metadata: { labels }, spec: { containers } } },
    }) as K8sObject;
  const policy = (port: number): K8sObject =>
    ({
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "p", namespace: "n" },
      spec: {
        podSelector: { matchLabels: labels },
        policyTypes: ["Ingress", "Egress"],
        egress: [{ to: [{ podSelector: {} }], ports: [{ port: 53 }] }, { ports: [{ protocol: "TCP", port }] }],
      },
    }) as K8sObject;
  const runner = { name: "runner", env: [{ name: "COMPASS_SERVER_ADDR", value: "https://server.example.com:8443" }] };

  it("an egress rule to the Server's port alone is no finding; to another port it is", () => {
    expect(cr15.check(new ObjectSet("compass-runner", [daemonSet([runner]), policy(8443)]))).toEqual([]);
    expect(cr15.check(new ObjectSet("compass-runner", [daemonSet([runner]), policy(9443)])).map((h) => h.path)).toEqual([["spec", "egress", 1]]);
  });

  it("a container that is no mapping fails the rule as before, gaps or none", () => {
    expect(() => cr15.check(new ObjectSet("compass-runner", [daemonSet([null]), policy(8443)]))).toThrow(TypeError);
    const noGaps = {
      ...policy(8443),
      spec: {
        podSelector: { matchLabels: labels },
        policyTypes: ["Ingress", "Egress"],
        egress: [{ to: [{ podSelector: {} }], ports: [{ port: 53 }] }, { to: [{ ipBlock: { cidr: "10.0.0.0/8" } }] }],
      },
    } as K8sObject;
    expect(() => cr15.check(new ObjectSet("compass-runner", [daemonSet([null]), noGaps]))).toThrow(TypeError);
  });
});

describe("CR-20 judges integers and the quota flag as the plain readers do", () => {
  const cr20 = compassRunnerRules.find((r) => r.id === "CR-20")!;
  const judge = (container: Record<string, unknown>) =>
    cr20
      .check(
        new ObjectSet("compass-runner", [
          {
            apiVersion: "apps/v1",
            kind: "DaemonSet",
            metadata: { name: "r", namespace: "n" },
            spec: { template: { spec: { containers: [{ name: "runner", ...container }] } } },
          } as K8sObject,
        ]),
      )
      .map((h) => `${h.path.join(".")}: ${h.message}`);

  /** The plain integer check: every integer through BigInt. */
  const plainIntProblem = (text: string) => {
    if (!/^[+-]?\d+$/.test(text)) return "is not an integer";
    const digits = text.replace(/^[+-]?0*/, "");
    if (digits.length > 19 || BigInt(digits || "0") > 9223372036854775807n + (text.startsWith("-") ? 1n : 0n)) return "is out of range for a 64-bit integer";
    return undefined;
  };

  it("integers of every length around the 64-bit bounds", () => {
    const values = ["0", "-0", "+7", "999999999999999999", "+99999999999999999", "-99999999999999999", "9999999999999999999", "9223372036854775807"];
    values.push("9223372036854775808", "-9223372036854775808", "-9223372036854775809", "00000000000000000000000042", "1.5", "", "x1", "+-1");
    for (let length = 1; length <= 22; length++) values.push("9".repeat(length), `-${"9".repeat(length)}`, `+1${"0".repeat(length - 1)}`);
    for (const value of values) {
      const problem = plainIntProblem(value);
      const hits = judge({
        env: [
          { name: "COMPASS_MICROVM_RUNROOT", value: "/run/x" },
          { name: "COMPASS_MICROVM_MEMORY_MB", value },
        ],
      });
      const mine = hits.filter((h) => h.includes("COMPASS_MICROVM_MEMORY_MB"));
      expect(mine).toEqual(
        problem && value !== ""
          ? [`env.1.value: --microvm-memory-mb / COMPASS_MICROVM_MEMORY_MB ${JSON.stringify(value)} ${problem}`].map(
              (m) => `spec.template.spec.containers.0.${m}`,
            )
          : [],
      );
    }
  });

  it("the quota flag: a Go bool flag, the last given wins, bare or with a value; a false flag yields to the variable", () => {
    const flag = "--microvm-quota-required";
    const runRoot = { name: "COMPASS_MICROVM_RUNROOT", value: "/run/x" };
    const quotaEnv = { name: "COMPASS_MICROVM_QUOTA_REQUIRED", value: "yes" };
    const cases: [Record<string, unknown>, string[]][] = [
      [{ args: [flag] }, []],
      [{ args: [`${flag}=maybe`] }, ["spec.template.spec.containers.0.args.0"]],
      [{ args: [`${flag}=maybe`, flag] }, []],
      [{ args: [flag, `${flag}=maybe`] }, ["spec.template.spec.containers.0.args.1"]],
      [{ command: ["/prog", `${flag}=maybe`], args: ["x"] }, ["spec.template.spec.containers.0.command.1"]],
      [{ command: ["/prog", `${flag}=maybe`], args: [`${flag}=false`] }, []],
      // The program itself is not a flag; a bare bool flag does not take the next word.
      [{ command: [`${flag}=nope`] }, []],
      [{ args: [flag, "--x=1", `${flag.slice(1)}=maybe`] }, ["spec.template.spec.containers.0.args.2"]],
      [{ args: [`${flag}=false`], env: [runRoot, quotaEnv] }, ["spec.template.spec.containers.0.env.1.value"]],
      [{ args: [flag], env: [runRoot, quotaEnv] }, []],
    ];
    for (const [container, paths] of cases) {
      const hits = judge({ env: [{ name: "COMPASS_MICROVM_RUNROOT", value: "/run/x" }], ...container }).filter((h) => h.includes("is not a boolean"));
      expect(hits.map((h) => h.split(": ")[0])).toEqual(paths);
    }
  });
});

describe("CR-03 and CR-11 remember path answers per path, and answer as posix does", () => {
  const rule = (id: string) => compassRunnerRules.find((r) => r.id === id)!;
  const runner = (fields: Record<string, unknown>, volumes: unknown[]) => {
    const container = { name: "runner", ...fields } as Container;
    const spec = { volumes, containers: [container] } as PodSpec;
    const object = { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "r", namespace: "n" }, spec: { template: { spec } } } as K8sObject;
    return { object, spec, container };
  };
  const PATHS = ["/srv/s", "/srv/s/", "/srv//s", "/srv/./s", "/srv/x/../s", "/srv/s/v", "/srv/s/v/", "/srv/s//v", "/srv/s/./v/"];
  // Paths that hold NUL (a pair must never read as another pair), and paths too long to be kept.
  PATHS.push("/x", "/x\u0000y", "/y\u0000z", "/z", `/${"l".repeat(600)}`, `/${"l".repeat(600)}/v`);

  /** Every pair twice (the second time from memory), then again after more paths than are kept. */
  const rounds = () => {
    const pairs: [string, string][] = [];
    for (let round = 0; round < 2; round++) for (const a of PATHS) for (const b of PATHS) pairs.push([a, b]);
    for (let i = 0; i < 1100; i++) pairs.push([`/many/${i}`, `/many/${i}/v`]);
    for (const a of PATHS) for (const b of PATHS) pairs.push([a, b]);
    return pairs;
  };

  it("CR-11: the volume root is the mount point itself exactly when posix says so", () => {
    for (const [mountPath, root] of rounds()) {
      const { object, spec, container } = runner({ volumeMounts: [{ name: "s", mountPath }], env: [{ name: "COMPASS_MICROVM_VOLUME_ROOT", value: root }] }, [
        { name: "s", hostPath: { path: "/srv/s" } },
      ]);
      const held = mountHolding({ spec }, container, root);
      const same = posix.normalize(root).replace(/\/$/, "") === posix.normalize(mountPath).replace(/\/$/, "");
      const found = rule("CR-11")
        .check(new ObjectSet("compass-runner", [object]))
        .some((h) => h.message.includes("is the mount point itself"));
      expect(found).toBe(held !== undefined && same);
    }
  });

  it("CR-03: the token is where the token file says exactly when posix.join says so (both cleaned)", () => {
    for (const [mountPath, below] of rounds()) {
      const tokenPath = `${below.slice(1)}/token`;
      const file = `${mountPath.replace(/\/+$/, "")}/srv/s/token`;
      const { object, spec, container } = runner({ volumeMounts: [{ name: "t", mountPath }], env: [{ name: "COMPASS_RUNNER_TOKEN_FILE", value: file }] }, [
        { name: "t", projected: { sources: [{ serviceAccountToken: { audience: "compass-runner", path: tokenPath, expirationSeconds: 3600 } }] } },
      ]);
      const held = mountHolding({ spec }, container, file);
      const hits = rule("CR-03").check(new ObjectSet("compass-runner", [object]));
      const elsewhere = hits.some((h) => h.message.startsWith("the token is at"));
      expect(elsewhere).toBe(held !== undefined && posix.join("/", mountPath, tokenPath) !== posix.normalize(file));
    }
  });
});
