// The Server's objects by meaning, not by spelling: a Server recognised by what
// it runs (CS-01), NetworkPolicies read as sets of peers and ports (CS-07,
// CS-11) and issuer discovery by what its roles grant (CS-15).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { checked, example, objectOf, verdict } from "../../support/spellings.ts";
import { render } from "../../support/values.ts";
import {
  asExpressions,
  deployment,
  type Edit,
  errorsAfter,
  flagToEnv,
  natsPolicy,
  type Objects,
  SERVER,
  server,
  serverPolicy,
  verdictOf,
} from "./spelling-edits.ts";

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
