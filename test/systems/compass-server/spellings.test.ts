// The Server's rules judge what Kubernetes and compass-server read, not the spelling:
// spellings made from the rendered examples by edits keep the verdict, and a
// broken Server is caught in every spelling (CS-01, CS-03, CS-06, CS-07, CS-09, CS-11, CS-15).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { checked, envToConfigMap, errorIds, example, objectOf, verdict } from "../../support/spellings.ts";
import { render } from "../../support/values.ts";

type Objects = K8sObject[];
type Edit = (objects: Objects) => void;

const SERVER = "compass-server.yaml";
const deployment = (objects: Objects) => objectOf(objects, "Deployment", "compass-server");
const pod = (objects: Objects) => deployment(objects).spec.template.spec;
const server = (objects: Objects) => pod(objects).containers[0];
const natsPolicy = (objects: Objects) => objectOf(objects, "NetworkPolicy", "compass-server-nats");
const serverPolicy = (objects: Objects) => objectOf(objects, "NetworkPolicy", "compass-server");

/** The edited example's verdict, less the lines about objects the edit added (`apart`, by name). */
function verdictOf(name: string, edit: Edit, apart: readonly string[] = []): string[] {
  const objects = example(name);
  edit(objects);
  return verdict(objects).filter((line) => !apart.some((n) => line.split(" ")[2].endsWith(`/${n}`)) && !/^objects warning/.test(line));
}

function errorsAfter(name: string, ...edits: Edit[]): string[] {
  const objects = example(name);
  for (const edit of edits) edit(objects);
  return errorIds(objects);
}

// ------------------------------------------------------------------ spellings

/** A selector's matchLabels written as matchExpressions `In`. */
function asExpressions(selector: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] }): void {
  selector.matchExpressions = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, operator: "In", values: [value] }));
  delete selector.matchLabels;
}

/** The Server's arguments rewritten word pair by word pair. */
function flagsAs(spell: (flag: string, value: string) => string[]): Edit {
  return (objects) => {
    const c = server(objects);
    const out: string[] = [];
    for (let i = 0; i < c.args.length; i += 2) out.push(...spell(c.args[i], c.args[i + 1]));
    c.args = out;
  };
}

/** Moves a flag with a variable twin into the environment as a literal value. */
function flagToEnv(flag: string, env: string): Edit {
  return (objects) => {
    const c = server(objects);
    const i = c.args.indexOf(flag);
    c.env.push({ name: env, value: c.args[i + 1] });
    c.args.splice(i, 2);
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

/** The Server Deployment without its name label: on itself, or on its pods too. */
function unlabelled(pods: boolean): Edit {
  return (objects) => {
    const d = deployment(objects);
    d.metadata.labels = { ...d.metadata.labels };
    delete d.metadata.labels["app.kubernetes.io/name"];
    if (!pods) return;
    d.spec.template.metadata.labels = { ...d.spec.template.metadata.labels };
    delete d.spec.template.metadata.labels["app.kubernetes.io/name"];
  };
}

describe("CS-01: a Server recognised by what it runs is judged without its name label", () => {
  const BROKEN: [string, Edit][] = [
    ["two replicas", (o) => void (deployment(o).spec.replicas = 2)],
    ["a RollingUpdate", (o) => void (deployment(o).spec.strategy = { type: "RollingUpdate" })],
  ];
  const SHAPES: [string, Edit][] = [
    ["by its image", () => {}],
    ["by its flags, the image renamed", (o) => void (server(o).image = server(o).image.replace("compass-server", "control-plane"))],
    [
      "by its variables, the image renamed and flags moved",
      (o) => {
        server(o).image = server(o).image.replace("compass-server", "control-plane");
        flagToEnv("--runner-clusters", "COMPASS_RUNNER_CLUSTERS")(o);
      },
    ],
  ];
  for (const [broken, edit] of BROKEN)
    for (const [shape, recognised] of SHAPES)
      for (const pods of [false, true])
        it(`${broken}, recognised ${shape}, the label missing on the Deployment${pods ? " and its pods" : ""}`, () => {
          const objects = example(SERVER);
          unlabelled(pods)(objects);
          recognised(objects);
          edit(objects);
          const { findings } = checked(objects);
          expect(findings.filter((f) => f.severity === "error").map((f) => f.ruleId)).toContain("CS-01");
          const label = findings.find((f) => f.ruleId === "G-07" && f.object.kind === "Deployment" && f.object.name === "compass-server");
          expect(label?.message).toContain("app.kubernetes.io/name");
        });

  it("unlabelled and correct: only the missing label is named", () => {
    expect(verdictOf(SERVER, unlabelled(false))).toEqual(["G-07 warning Deployment/compass-server metadata.labels"]);
  });

  it("an unlabelled Service in front of the Server is judged by what it selects (CS-08)", () => {
    const service = (o: Objects) => objectOf(o, "Service", "compass-server");
    const unlabelledService: Edit = (o) => {
      service(o).metadata.labels = { ...service(o).metadata.labels };
      delete service(o).metadata.labels!["app.kubernetes.io/name"];
    };
    expect(errorsAfter(SERVER, unlabelledService)).toEqual([]);
    expect(errorsAfter(SERVER, unlabelledService, (o) => void (service(o).spec.ports[0].targetPort = 9090))).toContain("CS-08");
  });

  it("the same Deployment twice is one Server; a second one by another name is not", () => {
    expect(errorsAfter(SERVER, (o) => void o.push(structuredClone(deployment(o))))).toEqual([]);
    const second: Edit = (o) => {
      const copy = structuredClone(deployment(o));
      copy.metadata.name = "compass-server-2";
      o.push(copy);
    };
    expect(errorsAfter(SERVER, second)).toContain("CS-01");
    expect(errorsAfter(SERVER, unlabelled(true), second)).toContain("CS-01");
  });
});

// ------------------------------------------------------------------ CS-07, CS-11

describe("CS-07: a NATS opened beyond the Server is caught in every spelling", () => {
  const peer = (o: Objects) => natsPolicy(o).spec.ingress[0].from[0];
  const OPEN: [string, Edit][] = [
    ["every pod of its namespace", (o) => void (peer(o).podSelector = {})],
    ["Server-labelled pods of every namespace", (o) => void (peer(o).namespaceSelector = {})],
    ["Server-labelled pods of another namespace", (o) => void (peer(o).namespaceSelector = { matchLabels: { "kubernetes.io/metadata.name": "elsewhere" } })],
    [
      "Server-labelled pods of two namespaces",
      (o) =>
        void (peer(o).namespaceSelector = { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["compass", "elsewhere"] }] }),
    ],
    ["every pod with a name label", (o) => void (peer(o).podSelector = { matchExpressions: [{ key: "app.kubernetes.io/name", operator: "Exists" }] })],
    ["every pod of the instance, NATS's own included", (o) => void (peer(o).podSelector = { matchLabels: { "app.kubernetes.io/instance": "compass-server" } })],
    ["every address", (o) => void (natsPolicy(o).spec.ingress[0].from = [{ ipBlock: { cidr: "0.0.0.0/0" } }])],
    ["every source", (o) => void delete natsPolicy(o).spec.ingress[0].from],
    [
      "a second policy by matchExpressions admitting everyone",
      (o) => {
        const open = structuredClone(natsPolicy(o));
        open.metadata.name = "nats-open";
        asExpressions(open.spec.podSelector);
        open.spec.ingress = [{}];
        o.push(open);
      },
    ],
  ];
  for (const [name, edit] of OPEN) {
    it(`${name}, selectors as written`, () => expect(errorsAfter(SERVER, edit)).toContain("CS-07"));
    it(`${name}, selectors by matchExpressions`, () => {
      const spelled: Edit = (o) => {
        edit(o);
        for (const p of natsPolicy(o).spec.ingress[0].from ?? []) if (p.podSelector?.matchLabels) asExpressions(p.podSelector);
        asExpressions(natsPolicy(o).spec.podSelector);
      };
      expect(errorsAfter(SERVER, spelled)).toContain("CS-07");
    });
  }
});

describe("CS-11: a Server opened beyond its TLS port is caught in every spelling", () => {
  const port = (o: Objects) => serverPolicy(o).spec.ingress[0].ports[0];
  const OPEN: [string, Edit][] = [
    ["every port (no ports)", (o) => void delete serverPolicy(o).spec.ingress[0].ports],
    ["a port entry without a port", (o) => void delete port(o).port],
    ["a range around the TLS port", (o) => Object.assign(port(o), { port: 8000, endPort: 9000 })],
    ["another number", (o) => void (port(o).port = 9090)],
    [
      "a name the Server gives another port",
      (o) => {
        server(o).ports.push({ name: "metrics", containerPort: 9090, protocol: "TCP" });
        port(o).port = "metrics";
      },
    ],
  ];
  for (const [name, edit] of OPEN) {
    it(`${name}`, () => expect(errorsAfter(SERVER, edit)).toContain("CS-11"));
    it(`${name}, in a second policy selecting by matchExpressions`, () => {
      const second: Edit = (o) => {
        // The rendered policy stays under another name; the edit goes to its copy, selecting by matchExpressions.
        const original = serverPolicy(o);
        const copy = structuredClone(original);
        original.metadata.name = "compass-server-rendered";
        asExpressions(copy.spec.podSelector);
        o.push(copy);
        edit(o);
      };
      expect(errorsAfter(SERVER, second)).toContain("CS-11");
    });
  }
  it("a named port the Server pod does not declare opens nothing on it", () => {
    expect(errorsAfter(SERVER, (o) => void (port(o).port = "nowhere"))).not.toContain("CS-11");
  });
});

// ------------------------------------------------------------------ CS-03, CS-07, CS-09 settings

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

describe("CS-15: issuer discovery opened in any spelling of the same grant", () => {
  const values = parse(readFileSync("examples/compass-server.yaml", "utf8"));
  const { jwksFile: _, ...cluster } = values.runnerClusters[0];
  const opened = () =>
    structuredClone(
      render({
        ...values,
        runnerClusters: [{ ...cluster, allowUnauthenticatedDiscovery: true }],
        issuerEgress: [{ cidr: "10.96.0.1/32", ports: [{ port: 443 }] }],
      }),
    ) as Objects;
  const binding = (o: Objects) => objectOf(o, "ClusterRoleBinding");
  const verdictOpened = (edit: Edit) => {
    const o = opened();
    edit(o);
    return verdict(o);
  };
  const base = verdictOpened(() => {});
  /** A ClusterRole of the input, labelled as the binding, that the binding then names. */
  const role =
    (rules: unknown[]): Edit =>
    (o) => {
      const b = binding(o);
      o.push({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "compass-discovery", labels: b.metadata.labels },
        rules,
      } as unknown as K8sObject);
      (b as unknown as { roleRef: { name: string } }).roleRef.name = "compass-discovery";
    };
  const cs15 = (lines: string[]) => lines.filter((l) => l.startsWith("CS-15"));

  it("rendered: no CS-15 finding", () => expect(cs15(base)).toEqual([]));

  const SAME: [string, Edit][] = [
    [
      "the user system:anonymous",
      (o) =>
        void ((binding(o) as unknown as { subjects: unknown[] }).subjects = [
          { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:anonymous" },
        ]),
    ],
    [
      "a ClusterRole with the same rule, URLs in another order",
      role([{ verbs: ["get"], nonResourceURLs: ["/openid/v1/jwks", "/.well-known/openid-configuration"] }]),
    ],
    [
      "a ClusterRole with the rule split in two",
      role([
        { nonResourceURLs: ["/openid/v1/jwks"], verbs: ["get"] },
        { nonResourceURLs: ["/.well-known/openid-configuration"], verbs: ["get", "get"] },
      ]),
    ],
    ["a ClusterRole with verbs * and URL prefixes", role([{ verbs: ["*"], nonResourceURLs: ["/.well-known/*", "/openid/*"] }])],
  ];
  for (const [name, edit] of SAME) it(`${name} keeps the verdict`, () => expect(verdictOpened(edit)).toEqual(base));

  const CLOSED: [string, Edit][] = [
    ["no binding", (o) => void o.splice(o.indexOf(binding(o)), 1)],
    [
      "a binding to the authenticated only",
      (o) => void ((binding(o) as unknown as { subjects: { name: string }[] }).subjects[0].name = "system:authenticated"),
    ],
    ["a ClusterRole without the keys", role([{ verbs: ["get"], nonResourceURLs: ["/.well-known/openid-configuration"] }])],
    ["a ClusterRole that grants list, not get", role([{ verbs: ["list"], nonResourceURLs: ["/.well-known/openid-configuration", "/openid/v1/jwks"] }])],
    [
      "a built-in ClusterRole without discovery",
      (o) => void ((binding(o) as unknown as { roleRef: { name: string } }).roleRef.name = "system:public-info-viewer"),
    ],
  ];
  it("an unlabelled issuer-discovery ClusterRoleBinding, and its unlabelled ClusterRole, keep the verdict", () => {
    const unlabelled: Edit = (o) => {
      role([{ verbs: ["get"], nonResourceURLs: ["/openid/v1/jwks", "/.well-known/openid-configuration"] }])(o);
      for (const object of o.filter((x) => x.kind === "ClusterRoleBinding" || x.kind === "ClusterRole")) delete object.metadata.labels;
    };
    // G-07 asks for the labels (a warning); CS-15 sees the binding as the Server's all the same.
    expect(verdictOpened(unlabelled).filter((l) => !l.startsWith("G-07 warning"))).toEqual(base);
  });
  for (const [name, edit] of CLOSED) it(`${name} is CS-15`, () => expect(cs15(verdictOpened(edit)).some((l) => l.startsWith("CS-15 error"))).toBe(true));
});
