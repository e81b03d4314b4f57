// The Server's rules judge what Kubernetes and compass-server read, not the spelling:
// spellings made from the rendered examples by edits keep the verdict, and a
// broken setting is caught in every spelling (CS-03, CS-06, CS-07, CS-09; the
// objects' own spellings are in spellings-objects.test.ts).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { envToConfigMap, example, verdict } from "../../support/spellings.ts";
import { render } from "../../support/values.ts";
import { asExpressions, type Edit, errorsAfter, flagToEnv, natsPolicy, type Objects, pod, SERVER, server, serverPolicy, verdictOf } from "./spelling-edits.ts";

/** The Server's arguments rewritten word pair by word pair. */
function flagsAs(spell: (flag: string, value: string) => string[]): Edit {
  return (objects) => {
    const c = server(objects);
    const out: string[] = [];
    for (let i = 0; i < c.args.length; i += 2) out.push(...spell(c.args[i], c.args[i + 1]));
    c.args = out;
  };
}

/** The flags with variable twins, as literal variables. */
const FLAGS_AS_ENV: Edit = (objects) => {
  for (const [flag, env] of [
    ["--runner-clusters", "COMPASS_RUNNER_CLUSTERS"],
    ["--secret-provider", "COMPASS_SECRET_PROVIDER"],
    ["--public-url", "COMPASS_PUBLIC_URL"],
    ["--forge-host", "COMPASS_FORGE_HOST"],
  ])
    flagToEnv(flag, env)(objects);
};

/** The Server's Secret-fed variables read through envFrom of one Secret, given in the input or not. */
function secretsThroughEnvFrom(inInput: boolean): Edit {
  return (objects) => {
    const c = server(objects);
    const moved = c.env.filter((e: { valueFrom?: unknown }) => e.valueFrom);
    c.env = c.env.filter((e: { valueFrom?: unknown }) => !e.valueFrom);
    c.envFrom = [{ secretRef: { name: "compass-env" } }];
    if (inInput)
      objects.push({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "compass-env", namespace: "compass" },
        type: "Opaque",
        data: Object.fromEntries(moved.map((e: { name: string }) => [e.name, Buffer.from("x").toString("base64")])),
      } as unknown as K8sObject);
  };
}

/** A path as written with `//`, `./` and a trailing slash where Go and the kubelet read the same file. */
const dotted = (path: string) => path.replace(/^\/([^/]+)\//, "//$1/./");

const EQUIVALENT: [name: string, edit: Edit, apart?: string[]][] = [
  ["the same objects given twice (CS-01)", (o) => void o.push(...structuredClone(o))],
  ["flags as --flag=value", flagsAs((f, v) => [`${f}=${v}`])],
  ["flags as -flag value", flagsAs((f, v) => [f.slice(1), v])],
  ["flags as -flag=value", flagsAs((f, v) => [`${f.slice(1)}=${v}`])],
  [
    "flags in command after the binary",
    (o) => {
      const c = server(o);
      c.command = ["/nix/store/abc-compass-server/bin/compass-server", ...c.args];
      delete c.args;
    },
  ],
  ["flags given as their variables", FLAGS_AS_ENV],
  [
    "flags given as variables from a ConfigMap read by envFrom",
    (o) => {
      FLAGS_AS_ENV(o);
      envToConfigMap(o, "Deployment", "envFrom");
    },
  ],
  [
    "flags given as variables from configMapKeyRef",
    (o) => {
      FLAGS_AS_ENV(o);
      envToConfigMap(o, "Deployment", "configMapKeyRef");
    },
  ],
  [
    "a flag's value as $(VAR) of a literal variable",
    (o) => {
      const c = server(o);
      const i = c.args.indexOf("--runner-clusters");
      c.env.unshift({ name: "CLUSTERS_FILE", value: c.args[i + 1] });
      c.args[i + 1] = "$(CLUSTERS_FILE)";
    },
  ],
  [
    "--database $(VAR) of a variable fed from a Secret",
    (o) => {
      const c = server(o);
      const dsn = c.env.find((e: { name: string }) => e.name === "COMPASS_DATABASE_DSN");
      dsn.name = "DB";
      c.args.push("--database", "$(DB)");
    },
  ],
  ["Secret-fed variables through envFrom of a Secret in the input", secretsThroughEnvFrom(true), ["compass-env"]],
  ["Secret-fed variables through envFrom of a Secret outside the input (not judged)", secretsThroughEnvFrom(false)],
  ["the Server's policy selecting by matchExpressions", (o) => asExpressions(serverPolicy(o).spec.podSelector)],
  ["the NATS policy selecting by matchExpressions", (o) => asExpressions(natsPolicy(o).spec.podSelector)],
  ["the NATS peer by matchExpressions (CS-07)", (o) => asExpressions(natsPolicy(o).spec.ingress[0].from[0].podSelector)],
  [
    "the NATS peer with its own namespaceSelector of its namespace (CS-07)",
    (o) => void (natsPolicy(o).spec.ingress[0].from[0].namespaceSelector = { matchLabels: { "kubernetes.io/metadata.name": "compass" } }),
  ],
  [
    "the NATS peer's namespaceSelector by matchExpressions (CS-07)",
    (o) =>
      void (natsPolicy(o).spec.ingress[0].from[0].namespaceSelector = {
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["compass"] }],
      }),
  ],
  ["the Server's ingress port by its name https (CS-11)", (o) => void (serverPolicy(o).spec.ingress[0].ports[0].port = "https")],
  [
    "the Server's ingress port by another name (CS-11)",
    (o) => {
      server(o).ports[0].name = "door";
      server(o).readinessProbe.tcpSocket.port = "door";
      serverPolicy(o).spec.ingress[0].ports[0].port = "door";
    },
  ],
  ["the Server's ingress port as a range of one (CS-11)", (o) => void (serverPolicy(o).spec.ingress[0].ports[0].endPort = 8443)],
  [
    "file flags with // and ./ (CS-08, CS-09, CS-13)",
    (o) => {
      const c = server(o);
      c.args = c.args.map((a: string) => (/^\/(etc|run|var)\//.test(a) ? dotted(a) : a));
    },
  ],
  [
    "mount paths with // and a trailing slash (CS-05, CS-08, CS-09)",
    (o) => {
      for (const m of server(o).volumeMounts) m.mountPath = `${m.mountPath.replace("/compass/", "//compass/")}/`;
    },
  ],
  [
    "the secret provider's root with // and ./ (CS-05)",
    (o) => {
      const c = server(o);
      const i = c.args.indexOf("--secret-provider");
      c.args[i + 1] = "file:///var/run//secrets/./compass/secretspec/";
    },
  ],
  [
    "file flags relative to the working directory",
    (o) => {
      const c = server(o);
      c.workingDir = "/etc/compass";
      for (const flag of ["--tls-cert", "--tls-key", "--runner-clusters"]) {
        const i = c.args.indexOf(flag);
        c.args[i + 1] = `./${c.args[i + 1].slice("/etc/compass/".length)}`;
      }
    },
  ],
  [
    "volume items paths with ./ (CS-09)",
    (o) => {
      for (const source of pod(o).volumes.find((v: { name: string }) => v.name === "runner-cluster-files").projected.sources)
        for (const item of source.configMap.items) item.path = `./${item.path}`;
    },
  ],
];

describe("an equivalent spelling keeps the Server's verdict", () => {
  // compass.yaml is where the Runner and the Server meet: the Runner's rules read the Server's cluster file too.
  for (const name of [SERVER, "compass.yaml"]) {
    const base = verdictOf(name, () => {});
    it(`${name}: the rendered example has no finding`, () => expect(base).toEqual([]));
    for (const [spelling, edit, apart] of EQUIVALENT)
      it(`${name}: ${spelling}`, () => {
        const objects = example(name);
        edit(objects);
        // An edit with nothing to change proves nothing.
        expect(JSON.stringify(objects)).not.toEqual(JSON.stringify(example(name)));
        expect(verdictOf(name, edit, apart)).toEqual(base);
      });
  }
});

// ------------------------------------------------------------------ CS-01

describe("a broken setting is caught in every spelling", () => {
  const literal =
    (name: string, value: string): Edit =>
    (o) => {
      const entry = server(o).env.find((e: { name: string }) => e.name === name);
      delete entry.valueFrom;
      entry.value = value;
    };
  const BROKEN: [id: string, name: string, value: string][] = [
    ["CS-03", "COMPASS_DATABASE_DSN", "postgres://compass:hunter2@db.example.com/compass"],
    ["CS-07", "COMPASS_NATS_URL", "nats://compass:hunter2@compass-server-nats.compass.svc:4222"],
    ["CS-07", "COMPASS_NATS_URL", "nats://compass-server-nats.compass.svc:4222"],
  ];
  for (const [id, name, value] of BROKEN) {
    const broken = literal(name, value);
    const flag = name === "COMPASS_DATABASE_DSN" ? "--database" : "--nats-url";
    it(`${id}: ${name}=${value} as a literal`, () => expect(errorsAfter(SERVER, broken)).toContain(id));
    it(`${id}: ${name} through envFrom of a ConfigMap`, () =>
      expect(errorsAfter(SERVER, broken, (o) => void envToConfigMap(o, "Deployment", "envFrom", [name]))).toContain(id));
    it(`${id}: ${name} through configMapKeyRef`, () =>
      expect(errorsAfter(SERVER, broken, (o) => void envToConfigMap(o, "Deployment", "configMapKeyRef", [name]))).toContain(id));
    it(`${id}: ${flag} $(VAR) of it`, () => {
      const viaFlag: Edit = (o) => {
        const entry = server(o).env.find((e: { name: string }) => e.name === name);
        entry.name = "PART";
        server(o).args.push(flag, "$(PART)");
      };
      expect(errorsAfter(SERVER, broken, viaFlag)).toContain(id);
    });
    for (const spell of [(v: string) => [`${flag}=${v}`], (v: string) => [flag.slice(1), v], (v: string) => [`${flag.slice(1)}=${v}`]])
      it(`${id}: as ${spell("v").join(" ")}`, () => expect(errorsAfter(SERVER, (o) => void server(o).args.push(...spell(value)))).toContain(id));
  }

  const NOT_MOUNTED = "/etc/compass/elsewhere/clusters.yaml";
  const CLUSTERS: [string, Edit][] = [
    ["--runner-clusters", (o) => void (server(o).args[server(o).args.indexOf("--runner-clusters") + 1] = NOT_MOUNTED)],
    ["--runner-clusters=", flagsAs((f, v) => [`${f}=${f === "--runner-clusters" ? NOT_MOUNTED : v}`])],
    ["-runner-clusters", flagsAs((f, v) => [f.slice(1), f === "--runner-clusters" ? NOT_MOUNTED : v])],
    [
      "COMPASS_RUNNER_CLUSTERS through envFrom",
      (o) => {
        flagToEnv("--runner-clusters", "COMPASS_RUNNER_CLUSTERS")(o);
        server(o).env.find((e: { name: string }) => e.name === "COMPASS_RUNNER_CLUSTERS").value = NOT_MOUNTED;
        envToConfigMap(o, "Deployment", "envFrom");
      },
    ],
    [
      "COMPASS_RUNNER_CLUSTERS through configMapKeyRef",
      (o) => {
        flagToEnv("--runner-clusters", "COMPASS_RUNNER_CLUSTERS")(o);
        server(o).env.find((e: { name: string }) => e.name === "COMPASS_RUNNER_CLUSTERS").value = NOT_MOUNTED;
        envToConfigMap(o, "Deployment", "configMapKeyRef");
      },
    ],
    [
      "--runner-clusters $(VAR)",
      (o) => {
        const c = server(o);
        c.env.unshift({ name: "CLUSTERS_FILE", value: NOT_MOUNTED });
        c.args[c.args.indexOf("--runner-clusters") + 1] = "$(CLUSTERS_FILE)";
      },
    ],
    [
      "--runner-clusters through .. out of its mount",
      (o) => void (server(o).args[server(o).args.indexOf("--runner-clusters") + 1] = "/etc/compass/runner-clusters/../tls/clusters.yaml"),
    ],
  ];
  for (const [name, edit] of CLUSTERS)
    it(`CS-09: a runner clusters file that is not mounted, as ${name}`, () => expect(errorsAfter(SERVER, edit)).toContain("CS-09"));

  it("a DSN an envFrom outside the input may set is not judged; with no envFrom it is missing (CS-03)", () => {
    const drop: Edit = (o) => void (server(o).env = server(o).env.filter((e: { name: string }) => e.name !== "COMPASS_DATABASE_DSN"));
    expect(errorsAfter(SERVER, drop)).toContain("CS-03");
    expect(errorsAfter(SERVER, drop, (o) => void (server(o).envFrom = [{ configMapRef: { name: "elsewhere" } }]))).not.toContain("CS-03");
  });
});

// ------------------------------------------------------------------ CS-06 paths

describe("CS-06: the admin token file judged by the path the program opens", () => {
  const values = parse(readFileSync("examples/compass-server.yaml", "utf8"));
  const withP4 = () => structuredClone(render({ ...values, designed: { P4: true }, adminToken: { name: "compass-admin-token", key: "token" } })) as Objects;
  const tokenFlag = (o: Objects) => server(o).args.indexOf("--admin-token-file") + 1;
  const verdictP4 = (edit: Edit) => {
    const o = withP4();
    edit(o);
    return verdict(o);
  };
  const base = verdictP4(() => {});

  it("rendered with P4: only the designed flag's warning", () => expect(base.every((l) => l.startsWith("CS-14 warning"))).toBe(true));
  it("the token path with // and ./ keeps the verdict", () => {
    expect(verdictP4((o) => void (server(o).args[tokenFlag(o)] = dotted(server(o).args[tokenFlag(o)])))).toEqual(base);
  });
  it("a readable token file is caught as written and with // and ./", () => {
    const open: Edit = (o) => {
      for (const v of pod(o).volumes) if (v.secret?.secretName === "compass-admin-token") v.secret.defaultMode = 0o644;
    };
    expect(verdictP4(open).some((l) => l.startsWith("CS-06 error"))).toBe(true);
    expect(
      verdictP4((o) => {
        open(o);
        server(o).args[tokenFlag(o)] = dotted(server(o).args[tokenFlag(o)]);
      }).some((l) => l.startsWith("CS-06 error")),
    ).toBe(true);
  });
  it("a token path that leaves its Secret volume by .. is caught", () => {
    expect(
      verdictP4((o) => void (server(o).args[tokenFlag(o)] = `${server(o).args[tokenFlag(o)]}/../../../tmp/token`)).some((l) => l.startsWith("CS-06 error")),
    ).toBe(true);
  });
});

// ------------------------------------------------------------------ CS-15
