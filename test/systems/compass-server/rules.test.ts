// The Server's rules read settings as compass-server does: a flag or its
// variable twin both count and a non-empty flag wins; `$(VAR)` in an
// argument is the container's variable; `command` counts when it starts
// compass-server; one dash or two.
import { readFileSync } from "node:fs";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { Container } from "kubernetes-types/core/v1";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { render } from "../../support/values.ts";
import { catalog } from "../../../src/systems/registry.ts";

/** The rendered example, with the Server container changed by `edit`; the IDs it then raises. */
function findingsAfter(edit: (c: Container) => void): string[] {
  const objects = structuredClone(render(parse(readFileSync("examples/compass-server.yaml", "utf8")))) as K8sObject[];
  const server = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "compass-server") as Deployment & K8sObject;
  edit(server.spec!.template.spec!.containers[0]);
  return [...new Set(catalog.checkObjects(objects).map((f) => f.id))].sort();
}

const dsnFromSecret = { name: "COMPASS_DATABASE_DSN", valueFrom: { secretKeyRef: { name: "compass-database", key: "dsn" } } };

describe("the Server's rules read flags and their variable twins as compass-server does", () => {
  it("the rendered example raises nothing", () => expect(findingsAfter(() => {})).toEqual([]));

  it("--database=$(VAR) of a variable fed from a Secret is the Secret's DSN (CS-03)", () => {
    expect(
      findingsAfter((c) => {
        c.env = [{ name: "DB", valueFrom: dsnFromSecret.valueFrom }, ...c.env!.filter((e) => e.name !== "COMPASS_DATABASE_DSN")];
        c.args!.push("--database=$(DB)");
      }),
    ).toEqual([]);
  });

  it("a non-empty flag wins over its variable: an inline --nats-url is judged, not the Secret (CS-07)", () => {
    expect(findingsAfter((c) => c.args!.push("--nats-url", "nats://nats.compass.svc:4222"))).toEqual(["CS-07"]);
  });

  it("an empty flag leaves the variable in force", () => {
    expect(findingsAfter((c) => c.args!.push("--nats-url="))).toEqual([]);
  });

  it("the variable twin counts where the flag is absent (CS-09)", () => {
    expect(
      findingsAfter((c) => {
        const i = c.args!.indexOf("--runner-clusters");
        const path = c.args![i + 1];
        c.args!.splice(i, 2);
        c.env!.push({ name: "COMPASS_RUNNER_CLUSTERS", value: path });
      }),
    ).toEqual([]);
  });

  it("command counts when it starts compass-server, and one dash is a flag", () => {
    expect(
      findingsAfter((c) => {
        c.command = ["/usr/local/bin/compass-server", "-listen=:8443"];
        c.args = c.args!.filter((_, i, all) => all[i] !== "--listen" && all[i - 1] !== "--listen");
      }),
    ).toEqual([]);
    expect(findingsAfter((c) => (c.args = ["-config", "/etc/compass/server.yaml", ...c.args!]))).toEqual(["CS-13"]);
  });

  it("a Secret's DSN under a variable the Server does not read leaves it without one (CS-03, CS-13)", () => {
    expect(findingsAfter((c) => (c.env = c.env!.map((e) => (e.name === "COMPASS_DATABASE_DSN" ? { ...e, name: "COMPASS_DATABASE_URL" } : e))))).toEqual([
      "CS-03",
      "CS-13",
    ]);
  });

  it("a manifest of the wrong shapes is judged, not crashed on: a number for --listen has no port (CS-08)", () => {
    expect(findingsAfter((c) => ((c as unknown as { args: unknown[] }).args = c.args!.map((a) => (a === ":8443" ? 8443 : a))))).toEqual(["CS-08"]);
  });

  it("a positional argument ends the flags, as in Go's flag package", () => {
    // Every flag is then unread; the DSN and the NATS URL still come from their variables.
    expect(findingsAfter((c) => (c.args = ["serve", ...c.args!]))).toEqual(["CS-05", "CS-08", "CS-09", "CS-13"]);
  });
});

describe("the reviewer App in a hand-written Server: scope enforcement needs a grant (CS-13)", () => {
  const reviewer = ["--forge-reviewer-app-id=42", "--forge-reviewer-app-installation-id=43", "--forge-reviewer-app-key-secret=FORGE_REVIEWER_APP_PRIVATE_KEY"];
  const withReviewer =
    (...more: string[]) =>
    (c: Container) =>
      c.args!.push(...reviewer, ...more);

  it("with enforcement on (the Server's default) and no grant: every agent forge write is refused, the fix named", () => {
    expect(findingsAfter(withReviewer())).toEqual(["CS-13"]);
    expect(findingsAfter(withReviewer("--forge-disable-scope-enforcement=false"))).toEqual(["CS-13"]);
    const objects = structuredClone(render(parse(readFileSync("examples/compass-server.yaml", "utf8")))) as K8sObject[];
    const server = objects.find((o) => o.kind === "Deployment") as Deployment & K8sObject;
    withReviewer()(server.spec!.template.spec!.containers[0]);
    const [finding] = catalog.checkObjects(objects);
    expect(finding.message).toMatch(/^--forge-reviewer-app-id gives the reviewer App, .* the Server refuses every agent forge write; list the grants/);
    expect(finding.message).toContain("--forge-disable-scope-enforcement=true");
  });

  it("a grant, by flag or variable, or enforcement turned off, satisfies it; a value the manifest does not show is not judged", () => {
    expect(findingsAfter(withReviewer("--forge-scope-grants=alice:github:github.com:rigelbuild/compass"))).toEqual([]);
    expect(findingsAfter(withReviewer("--forge-disable-scope-enforcement=true"))).toEqual([]);
    expect(findingsAfter(withReviewer("--forge-disable-scope-enforcement", "1"))).toEqual([]);
    expect(
      findingsAfter((c) => {
        withReviewer()(c);
        c.env!.push({ name: "COMPASS_FORGE_SCOPE_GRANTS", value: "alice:github:github.com:rigelbuild/compass" });
      }),
    ).toEqual([]);
    expect(
      findingsAfter((c) => {
        withReviewer()(c);
        c.env!.push({ name: "COMPASS_FORGE_SCOPE_GRANTS", valueFrom: { configMapKeyRef: { name: "compass-forge", key: "grants" } } });
      }),
    ).toEqual([]);
  });
});
