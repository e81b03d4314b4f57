// Compass as released (compass-interfaces §7): the designed flags P4
// (--admin-token-file) and P9 (--server-name) appear only when their value
// opts in, and the notes name the task (CS-14); forge scope enforcement by
// the flags of compass-server f71f2ba4 (CS-13).
import { readFileSync } from "node:fs";
import type { DaemonSet, Deployment } from "kubernetes-types/apps/v1";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { parseValuesFile } from "../../../src/parse/source.ts";
import { renderSource } from "../../../src/pipeline.ts";
import { validateStrict } from "../../support/k8s-schema.ts";
import { expectRefused, refusal, render } from "../../support/values.ts";
import { catalog } from "../../../src/systems/registry.ts";

const load = (file: string) => () => parse(readFileSync(file, "utf8")) as Record<string, any>;
const server = load("examples/compass-server.yaml");
const runner = load("examples/compass-runner.yaml");
const compass = load("examples/compass.yaml");

function rendered(values: object, file = "values.yaml") {
  return renderSource(parseValuesFile(stringify(values), file));
}

function container(objects: K8sObject[], kind: "Deployment" | "DaemonSet") {
  const o = objects.find((x) => x.kind === kind && /compass-(server|runner)/.test(x.metadata.labels?.["app.kubernetes.io/name"] ?? "")) as (
    | Deployment
    | DaemonSet
  ) &
    K8sObject;
  return o.spec!.template.spec!.containers[0];
}

const names = (c: { args?: string[]; env?: { name: string }[] }) => [...(c.args ?? []).map((a) => a.split("=")[0]), ...(c.env ?? []).map((e) => e.name)];

describe("P4, --admin-token-file (CS-14, CS-06)", () => {
  it("off by default: no flag, no admin token volume, and the notes print how to read the minted token", () => {
    const { objects, notes } = rendered(server());
    const c = container(objects, "Deployment");
    expect(names(c)).not.toContain("--admin-token-file");
    expect(c.volumeMounts!.map((m) => m.name)).not.toContain("admin-token");
    expect(notes).toContain("  kubectl -n compass exec deploy/compass-server -c server -- cat /var/lib/compass/server/admin-token");
    expect(notes.join("\n")).not.toMatch(/needs a Compass Server with P4/);
  });

  it("on with designed.P4 and adminToken: the flag names a 0400 Secret file, and the notes name P4", () => {
    const { objects, notes } = rendered({ ...server(), designed: { P4: true }, adminToken: { name: "compass-admin-token" } });
    const c = container(objects, "Deployment");
    const at = c.args!.indexOf("--admin-token-file");
    expect(c.args![at + 1]).toBe("/var/run/secrets/compass/admin-token/token");
    const spec = (objects.find((o) => o.kind === "Deployment" && o.metadata.name === "compass-server") as Deployment & K8sObject).spec!.template.spec!;
    expect(spec.volumes).toContainEqual({
      name: "admin-token",
      secret: { secretName: "compass-admin-token", defaultMode: 256, items: [{ key: "token", path: "token" }] },
    });
    expect(notes).toContain(
      "note: CS-14: designed, opted in: the Server's --admin-token-file needs a Compass Server with P4, a task of the Compass Server-on-Kubernetes design; the released binaries exit 2 on the flag",
    );
    expect(notes.join("\n")).toMatch(/Secret compass-admin-token, key token: the admin token, for --admin-token-file/);
    expect(notes.join("\n")).not.toMatch(/kubectl .* exec .*admin-token/);
    for (const object of objects) expect(validateStrict(object)).toEqual([]);
    // The render's own check warns about the designed flag (CS-14) and finds no error.
    const findings = catalog.checkObjects(objects);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.map((f) => f.id)).toContain("CS-14");
  });

  it("refuses designed.P4 without adminToken, in one line that names the key", () => {
    const d = expectRefused({ ...server(), designed: { P4: true } }, "CS-14", "adminToken");
    expect(d.message).toBe("is missing, but designed.P4 asks for --admin-token-file");
  });

  it("refuses adminToken without designed.P4: no released Server reads it", () => {
    const d = expectRefused({ ...server(), adminToken: { name: "compass-admin-token" } }, "CS-14", "adminToken");
    expect(d.fix).toMatch(/designed\.P4: true/);
  });

  it("refuses a designed task the Server has not (strict keys) and a non-boolean opt-in", () => {
    expect(refusal({ ...server(), designed: { P9: true } }).map((d) => d.path)).toContain("designed.P9");
    expectRefused({ ...server(), designed: { P4: "yes" } }, "CS-14", "designed.P4");
  });
});

describe("P9, --server-name (CS-14, CR-14)", () => {
  it("CompassRunner: off by default, no flag; the notes say which host the certificate must name", () => {
    const { objects, notes } = rendered(runner());
    expect(names(container(objects, "DaemonSet"))).not.toContain("--server-name");
    expect(notes[0]).toBe(
      "note: CS-14: the Runner verifies the Server's certificate for compass-server.compass.svc, the host of serverAddr (no --server-name without P9): the certificate must name it",
    );
  });

  it("CompassRunner: on with designed.P9 and serverName, the flag is passed and the notes name P9", () => {
    const { objects, notes } = rendered({ ...runner(), designed: { P9: true }, serverName: "compass.example.com" });
    const c = container(objects, "DaemonSet");
    expect(c.args!.slice(0, 2)).toEqual(["--server-name", "compass.example.com"]);
    expect(notes[0]).toMatch(/^note: CS-14: designed, opted in: --server-name needs a Compass Runner with P9/);
    expect(catalog.checkObjects(objects).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("CompassRunner: refuses designed.P9 without serverName, and serverName without designed.P9", () => {
    expect(expectRefused({ ...runner(), designed: { P9: true } }, "CS-14", "serverName").message).toBe("is missing, but designed.P9 asks for --server-name");
    expectRefused({ ...runner(), serverName: "compass.example.com" }, "CS-14", "serverName");
  });

  it("kind: Compass: off by default; the checklist asks for the Service host on the certificate, with the preflight command", () => {
    const { objects, notes } = rendered(compass());
    expect(container(objects, "DaemonSet").args).toBeUndefined();
    const text = notes.join("\n");
    expect(text).toContain(
      "  [ ] Secret compass-server-tls of type kubernetes.io/tls whose certificate names compass.example.com and compass-server.compass.svc: without P9 the Runner verifies the host it dials (CS-08, CS-14)",
    );
    expect(text).toContain("rigging preflight tls --secret tls.yaml --server-name compass.example.com --service-host compass-server.compass.svc");
  });

  it("kind: Compass: on with runner.designed.P9, --server-name is the public host and the certificate needs only it", () => {
    const v = compass();
    v.runner.designed = { P9: true };
    const { objects, notes } = rendered(v);
    expect(container(objects, "DaemonSet").args).toEqual(["--server-name", "compass.example.com"]);
    const text = notes.join("\n");
    expect(text).toContain("  [ ] Secret compass-server-tls of type kubernetes.io/tls for compass.example.com (CS-08)");
    expect(text).toContain(
      "note: CS-14: designed, opted in: the Runner's --server-name needs a Compass Runner with P9, a task of the Compass Server-on-Kubernetes design",
    );
    expect(text).not.toContain("--service-host");
  });

  it("kind: Compass: refuses runner.serverName without P9", () => {
    const v = compass();
    v.runner.serverName = "compass.example.com";
    expectRefused(v, "CS-14", "runner.serverName");
  });
});

describe("forge scope enforcement, by compass-server f71f2ba4's flags (CS-13)", () => {
  const reviewer = { reviewerAppId: 42, reviewerAppInstallationId: 43, reviewerAppKeySecret: { name: "compass-reviewer-app" } };

  it("refuses the reviewer App with enforcement on and no scope grant: every agent forge write would be refused", () => {
    const d = expectRefused({ ...server(), forge: { ...server().forge, ...reviewer } }, "CS-13", "forge.scopeGrants");
    expect(d.fix).toMatch(/--forge-scope-grants/);
    expect(d.fix).toMatch(/disableScopeEnforcement: true/);
  });

  it("renders scope grants as --forge-scope-grants, enforcement left to the Server's default", () => {
    const grants = ["alice:github:github.com:rigelbuild/compass", "bot:linear:linear.app:*"];
    const c = container(render({ ...server(), forge: { ...server().forge, ...reviewer, scopeGrants: grants } }), "Deployment");
    expect(c.args![c.args!.indexOf("--forge-scope-grants") + 1]).toBe(grants.join(","));
    expect(names(c)).not.toContain("--forge-disable-scope-enforcement");
  });

  it("renders disableScopeEnforcement as one token, --forge-disable-scope-enforcement=true", () => {
    const c = container(render({ ...server(), forge: { ...server().forge, ...reviewer, disableScopeEnforcement: true } }), "Deployment");
    expect(c.args).toContain("--forge-disable-scope-enforcement=true");
  });

  it("never renders the removed --forge-enforce-scopes, and refuses its values key", () => {
    expectRefused({ ...server(), forge: { ...server().forge, enforceScopes: true } }, "CS-13", "forge.enforceScopes");
  });

  it("refuses a scope grant that is not account:provider:host:repo", () => {
    for (const grant of ["alice:github:github.com", "alice:gitlab:gitlab.com:a/b", "a,b:github:github.com:a/b"])
      expectRefused({ ...server(), forge: { ...server().forge, scopeGrants: [grant] } }, "CS-13", "forge.scopeGrants[0]");
  });
});

describe("check reads forge enforcement and the removed flag as the released Server does (CS-13)", () => {
  const objects = () => render(server());
  const serverContainer = (set: K8sObject[]) => container(set, "Deployment");

  it("flags COMPASS_FORGE_ENFORCE_SCOPES and --forge-enforce-scopes, naming the new flag", () => {
    const set = objects();
    serverContainer(set).env!.push({ name: "COMPASS_FORGE_ENFORCE_SCOPES", value: "true" });
    serverContainer(set).args!.push("--forge-enforce-scopes=true");
    const messages = catalog
      .checkObjects(set)
      .filter((f) => f.id === "CS-13")
      .map((f) => f.message);
    expect(messages).toContainEqual(expect.stringMatching(/^compass-server reads no COMPASS_FORGE_ENFORCE_SCOPES; it reads COMPASS_FORGE_DISABLE_SCOPE/));
    expect(messages).toContainEqual(expect.stringMatching(/^compass-server has no --forge-enforce-scopes flag .*--forge-disable-scope-enforcement/));
  });

  it("flags a COMPASS_FORGE_DISABLE_SCOPE_ENFORCEMENT that ParseBool refuses, and passes one it reads", () => {
    for (const [value, flagged] of [
      ["yes", true],
      ["True", false],
      ["0", false],
    ] as const) {
      const set = objects();
      serverContainer(set).env!.push({ name: "COMPASS_FORGE_DISABLE_SCOPE_ENFORCEMENT", value });
      const hit = catalog.checkObjects(set).some((f) => f.id === "CS-13" && /is not a boolean \(ParseBool\)/.test(f.message));
      expect(hit, value).toBe(flagged);
    }
  });
});
