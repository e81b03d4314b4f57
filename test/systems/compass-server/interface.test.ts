// The Server's contract (interface.ts) against the facts (compass-interfaces.md,
// a verbatim fixture) and against the rendered pod: every flag and variable
// in a rendered Server container is a contract name, every contract name is
// in the facts with its status, and the --runner-clusters file is in exactly
// the Server's schema, read back with the `yaml` package.
import { readFileSync } from "node:fs";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ConfigMap } from "kubernetes-types/core/v1";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { goDurationSeconds, readRunnerClusters } from "../../../src/systems/compass-contract/runner-clusters.ts";
import { SERVER_INTERFACE, SERVER_SECRETS, type InterfaceName } from "../../../src/systems/compass-server/interface.ts";
import { RUNNER_CLUSTERS_SCHEMA } from "../../../src/systems/compass-contract/interface.ts";
import { render } from "../../support/values.ts";

const FACTS = readFileSync("test/fixtures/compass-interfaces.md", "utf8");
const EXAMPLE = () => parse(readFileSync("examples/compass-server.yaml", "utf8")) as Record<string, any>;
const CONTRACT = Object.values(SERVER_INTERFACE as Record<string, InterfaceName>);

/** The example with every optional Server feature on: reviewer App, repos, scope grants, key files, P4. */
function fullValues(): Record<string, any> {
  const v = EXAMPLE();
  v.designed = { P4: true };
  v.adminToken = { name: "compass-admin-token" };
  v.forge = {
    ...v.forge,
    repos: ["rigelbuild/compass"],
    reviewerAppId: 42,
    reviewerAppInstallationId: 43,
    reviewerAppKeySecret: { name: "compass-reviewer-app" },
    scopeGrants: ["alice:github:github.com:rigelbuild/compass"],
    disableScopeEnforcement: true,
  };
  v.runnerClusters = [
    v.runnerClusters[0],
    {
      name: "edge",
      issuer: "https://edge.example.com",
      namespace: "compass-runner",
      serviceAccount: "compass-runner",
      maxTokenLifetime: 3600,
      jwksFile: { configMap: "edge-keys" },
      caFile: { configMap: "edge-ca" },
    },
  ];
  return v;
}

function serverPod(objects: K8sObject[]) {
  const d = objects.find((o) => o.kind === "Deployment" && o.metadata.labels?.["app.kubernetes.io/name"] === "compass-server") as Deployment & K8sObject;
  return d.spec!.template.spec!;
}

/** The table rows of the facts that name `name` in backticks (alone, or as `--flag` / `ENV`). */
function rowsNaming(name: string): string[] {
  return FACTS.split("\n").filter(
    (line) => line.startsWith("|") && (line.includes(`\`${name}\``) || line.includes(`\`${name} `) || line.includes(` ${name}\``)),
  );
}

describe("every flag and variable of a rendered Server container is in the contract", () => {
  for (const [what, values] of [
    ["the example", EXAMPLE()],
    ["every optional feature", fullValues()],
  ] as const) {
    it(what, () => {
      const container = serverPod(render(values)).containers[0];
      const flags = new Set(CONTRACT.flatMap((n) => (n.flag ? [n.flag] : [])));
      const env = new Set(CONTRACT.flatMap((n) => (n.env ? [n.env] : [])));
      const args = container.args!;
      // The renderer writes `--flag value` pairs, and `--flag=true` for a boolean: one token.
      for (let i = 0; i < args.length; i += args[i].includes("=") ? 1 : 2) {
        expect(args[i], `argument ${i}`).toMatch(/^--[a-z][-a-z]*(=true)?$/);
        expect(flags.has(args[i].split("=")[0]), `${args[i]} is not in interface.ts`).toBe(true);
      }
      for (const e of container.env ?? []) expect(env.has(e.name), `${e.name} is not in interface.ts`).toBe(true);
      expect(container.command).toBeUndefined();
    });
  }

  it("the rendered names are those the contract marks rendered, and no other", () => {
    const container = serverPod(render(fullValues())).containers[0];
    const used = new Set([...container.args!.filter((a) => a.startsWith("--")).map((a) => a.split("=")[0]), ...(container.env ?? []).map((e) => e.name)]);
    const marked = CONTRACT.filter((n) => n.rendered !== undefined).map((n) => (n.flag && used.has(n.flag) ? n.flag : (n.env ?? n.flag!)));
    expect([...used].sort()).toEqual(marked.sort());
  });
});

describe("every contract name is in compass-interfaces.md, with its status", () => {
  it("the fixture is the facts file", () => {
    expect(FACTS).toMatch(/^<!-- Facts gathered from the public upstream repository RigelBuild\/compass/);
    expect(FACTS).toContain("## 2. Compass Server (`compass-server`)");
  });

  for (const name of CONTRACT) {
    const label = name.flag ?? name.env!;
    it(`${label} (${name.status})`, () => {
      const rows = rowsNaming(label);
      expect(rows.length, `no row of compass-interfaces.md names ${label}`).toBeGreaterThan(0);
      if (name.env && name.flag)
        expect(
          rows.some((r) => r.includes(name.env!)),
          `${label}'s twin ${name.env}`,
        ).toBe(true);
      const statuses = rows.map((r) => r.trim().replace(/\|$/, "").split("|").at(-1)!.trim());
      if (name.status === "designed") expect(statuses.some((s) => /designed/.test(s))).toBe(true);
      else
        expect(
          statuses.some((s) => /^\**implemented/.test(s)),
          `${label}: ${statuses.join(" / ")}`,
        ).toBe(true);
      if (name.status === "implemented") expect(name.commit, `${label} names the commit its facts were read at`).toMatch(/^[0-9a-f]{8}$/);
      if (name.commit) expect(FACTS).toContain(`@${name.commit}`);
      // Users read the repository and path; the commit stays data.
      expect(name.source).not.toMatch(/@[0-9a-f]{7,}/);
    });
  }

  it("the SecretSpec names: COMPASS_MASTER_KEY and the SERVER_<NAME> prefix", () => {
    for (const secret of SERVER_SECRETS) expect(FACTS).toContain(`\`${secret.env}\``);
    expect(rowsNaming("COMPASS_MASTER_KEY").join("")).toMatch(/SecretSpec/);
  });

  it("the runner-clusters keys are exactly §2.3's", () => {
    const section = FACTS.slice(FACTS.indexOf("### 2.3"), FACTS.indexOf("### 2.4"));
    const keys = [...section.matchAll(/`clusters\[\]\.([A-Za-z]+)`/g)].map((m) => m[1]);
    expect([...RUNNER_CLUSTERS_SCHEMA.keys].sort()).toEqual([...keys].sort());
    expect(section).toContain(`@${RUNNER_CLUSTERS_SCHEMA.commit}`);
    expect(RUNNER_CLUSTERS_SCHEMA.source).toBe("RigelBuild/compass go/internal/auth/runner_clusters.go");
  });
});

/** The Server's schema (runner_clusters.go@7bc5d536), written out here, not taken from the code under test. */
const KEYS = ["name", "issuer", "audience", "namespace", "serviceAccount", "maxTokenLifetime", "jwksURI", "jwksFile", "caFile"];

function serverAccepts(text: string): string[] {
  const problems: string[] = [];
  const doc = parse(text);
  if (Object.keys(doc).join() !== "clusters") problems.push(`top-level keys ${Object.keys(doc)}`);
  const names = new Set<string>();
  const issuers = new Set<string>();
  for (const entry of doc.clusters as Record<string, unknown>[]) {
    for (const key of Object.keys(entry)) if (!KEYS.includes(key)) problems.push(`unknown key ${key}`);
    const name = String(entry.name);
    if (!/^[a-z0-9-]{1,40}$/.test(name) || names.has(name)) problems.push(`name ${name}`);
    names.add(name);
    const issuer = new URL(String(entry.issuer));
    if (issuer.protocol !== "https:" || !issuer.host) problems.push(`issuer ${entry.issuer}`);
    const trimmed = String(entry.issuer).replace(/\/$/, "");
    if (issuers.has(trimmed)) problems.push(`issuer ${trimmed} twice`);
    issuers.add(trimmed);
    if (!entry.namespace || !entry.serviceAccount) problems.push("namespace or serviceAccount missing");
    if (entry.jwksURI && entry.jwksFile) problems.push("jwksURI with jwksFile");
    const life = /^(\d+)s$/.exec(String(entry.maxTokenLifetime));
    if (!life || Number(life[1]) < 600) problems.push(`maxTokenLifetime ${entry.maxTokenLifetime}`);
  }
  return problems;
}

describe("the --runner-clusters file is in exactly the Server's schema", () => {
  const clustersText = (values: Record<string, any>) => {
    const cm = render(values).find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-runner-clusters")) as ConfigMap & K8sObject;
    return cm.data!["clusters.yaml"];
  };

  it("the example's and a full file parse back and pass the Server's checks", () => {
    for (const values of [EXAMPLE(), fullValues()]) {
      const text = clustersText(values);
      expect(serverAccepts(text)).toEqual([]);
      expect(readRunnerClusters(text).problems).toEqual([]);
    }
  });

  it("writes each entry's values as given, its lifetime as a Go duration, its files by path", () => {
    expect(parse(clustersText(fullValues())).clusters[1]).toEqual({
      name: "edge",
      issuer: "https://edge.example.com",
      audience: "compass-runner",
      namespace: "compass-runner",
      serviceAccount: "compass-runner",
      maxTokenLifetime: "3600s",
      jwksFile: "/etc/compass/runner-cluster-files/edge/jwks.json",
      caFile: "/etc/compass/runner-cluster-files/edge/ca.crt",
    });
  });

  it("every file path it names is mounted in the Server", () => {
    const values = fullValues();
    const spec = serverPod(render(values));
    for (const entry of parse(clustersText(values)).clusters) {
      for (const file of [entry.jwksFile, entry.caFile].filter(Boolean)) {
        expect(
          spec.containers[0].volumeMounts!.some((m) => file.startsWith(`${m.mountPath}/`)),
          file,
        ).toBe(true);
      }
    }
  });
});

describe("the runner-clusters reader refuses what the Server refuses", () => {
  const good = "clusters:\n  - name: a\n    issuer: https://a.example.com\n    namespace: n\n    serviceAccount: s\n";
  const problems = (text: string) =>
    readRunnerClusters(text)
      .problems.map((p) => p.message)
      .join("\n");

  it("accepts a minimal file, with the Server's defaults", () => {
    expect(readRunnerClusters(good)).toEqual({
      clusters: [{ name: "a", issuer: "https://a.example.com", audience: "compass-runner", namespace: "n", serviceAccount: "s", maxTokenLifetimeSeconds: 600 }],
      problems: [],
    });
  });
  it("an unknown key in an entry", () => expect(problems(`${good}    audiences: [x]\n`)).toMatch(/unknown key "audiences"/));
  it("an unknown top-level key", () => expect(problems(`${good}issuer: https://x\n`)).toMatch(/unknown key "issuer"/));
  it("a second document", () => expect(problems(`${good}---\n${good}`)).toMatch(/more than one YAML document/));
  it("a bare number of seconds, read as nanoseconds", () => expect(problems(`${good}    maxTokenLifetime: 86400\n`)).toMatch(/nanoseconds/));
  it("a lifetime below 600 s", () => expect(problems(`${good}    maxTokenLifetime: 9m59s\n`)).toMatch(/below the 600s minimum/));
  it("a shared issuer, trailing / ignored", () =>
    expect(problems(`${good}  - name: b\n    issuer: https://a.example.com/\n    namespace: n\n    serviceAccount: s\n`)).toMatch(
      /issuer is already cluster "a"/,
    ));
  it("an http issuer", () => expect(problems(good.replace("https://a", "http://a"))).toMatch(/https:\/\/ URL with a host/));
  it("a bad name", () => expect(problems(good.replace("name: a", "name: A_1"))).toMatch(/\[a-z0-9-\]\{1,40\}/));
  it("jwksURI with jwksFile", () => expect(problems(`${good}    jwksURI: https://k.example.com\n    jwksFile: /k.json\n`)).toMatch(/mutually exclusive/));

  it("reads Go durations as time.ParseDuration does", () => {
    expect(goDurationSeconds("600s")).toBe(600);
    expect(goDurationSeconds("24h")).toBe(86400);
    expect(goDurationSeconds("1h30m")).toBe(5400);
    expect(goDurationSeconds("1.5h")).toBe(5400);
    expect(goDurationSeconds("1500ms")).toBe(1.5);
    expect(goDurationSeconds("0")).toBe(0);
    for (const bad of ["", "600", "1d", "s", "1h 30m", "x".repeat(100)]) expect(goDurationSeconds(bad), bad).toBeUndefined();
  });
});

describe("the docs table of the Server's interface is generated from the contract", () => {
  it("one row per contract name, with its source and status; the designed flag says so", async () => {
    const { interfaceTable } = await import("../../../src/docs/interfaces.ts");
    const table = interfaceTable("compass-server");
    const rows = table.split("\n").slice(2);
    expect(rows).toHaveLength(CONTRACT.length + SERVER_SECRETS.length);
    expect(rows.find((r) => r.startsWith("| `--admin-token-file` |"))).toMatch(/\| `the Compass Server-on-Kubernetes design, task P4` \| designed \(P4\) \|$/);
    expect(rows.find((r) => r.startsWith("| `--database` |"))).toMatch(
      /^\| `--database` \| `COMPASS_DATABASE_DSN` \| `COMPASS_DATABASE_DSN from a secretKeyRef` \|.*\| `RigelBuild\/compass go\/cmd\/compass-server\/main.go` \| implemented \|$/,
    );
    expect(readFileSync("docs/compass-server.md", "utf8")).toContain(table);
  });
});
