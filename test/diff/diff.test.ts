// `rigging diff OLD NEW`: apply semantics against a live-state fixture (a
// rendered set with what the API server adds: test/support/live-state.ts),
// one test per consequence with one field of the fixture changed, and the
// inputs diff takes (values, a render -o directory, stdin, a List).
import { describe, expect, it } from "vitest";
import { runCli, runInProcess, tempDir, tempFile } from "../support/cli.ts";
import { liveOf } from "../support/live-state.ts";
import { stringify } from "yaml";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPASS, RUNNER, SERVER, consequences, diff, handEdited, live, rendered, valuesWith } from "./diff-helpers.ts";

const tokenOf = (d: Record<string, any>) =>
  d.spec.template.spec.volumes.find((v: any) => v.projected).projected.sources.find((s: any) => s.serviceAccountToken).serviceAccountToken;

describe("diff: apply semantics against the live state", () => {
  it.each([COMPASS, RUNNER, SERVER])("the live state of %s (status, managedFields, defaults) equals its rendered set, both ways", (file) => {
    const state = live(file);
    expect(diff(state, file)).toEqual({ code: 0, out: "summary: no change\n", err: "" });
    expect(diff(file, state)).toEqual({ code: 0, out: "summary: no change\n", err: "" });
  });

  it("kubectl get -o yaml on stdin, and a render -o directory", () => {
    const dir = join(tempDir(), "out");
    expect(runInProcess(["render", COMPASS, "-o", dir]).code).toBe(0);
    expect(diff(dir, COMPASS)).toEqual({ code: 0, out: "summary: no change\n", err: "" });
    const r = runCli(["diff", "-", dir], readFileSync(live(COMPASS), "utf8"));
    expect(r).toEqual({ code: 0, out: "summary: no change\n", err: "" });
  });

  it("a field the live side changed is a change; one the server only added is not", () => {
    // Set on the live object only (not in its last-applied configuration), as a default or another writer would.
    const list = liveOf(rendered(COMPASS)) as { items: Record<string, any>[] };
    list.items.find((o) => o.kind === "Deployment" && o.metadata.name === "compass-server")!.spec.template.spec.containers[0].imagePullPolicy = "Always";
    const state = tempFile(stringify(list), "live.yaml");
    const r = diff(state, COMPASS);
    // The rendered set does not set imagePullPolicy and never applied it: applying it leaves the live value.
    expect(r).toEqual({ code: 0, out: "summary: no change\n", err: "" });
    const changed = live(COMPASS, "Deployment", "compass-server", (d) => {
      d.spec.template.spec.containers[0].args.push("--extra");
    });
    expect(diff(changed, COMPASS).code).toBe(1);
  });
});

describe("diff: the consequence of each change", () => {
  it("the Runner DaemonSet's pod template: restarts the Runner on its node, sessions reaped within the grace period", () => {
    const state = live(COMPASS, "DaemonSet", "compass-runner", (d) => {
      d.spec.template.spec.containers[0].image = `registry.example.com/rigelbuild/compass-runner@sha256:${"1".repeat(64)}`;
    });
    const r = diff(state, COMPASS);
    expect(r.code).toBe(1);
    expect(r.out).toContain("~ apps/DaemonSet compass-runner/compass-runner\n    spec.template.spec.containers[compass-runner].image: ");
    expect(consequences(r.out)).toEqual([
      "  consequence: restarts the Runner on its node kvm-node-1, 1 node at a time; the sessions there are reaped within the grace period (terminationGracePeriodSeconds 720 s)",
    ]);
    expect(r.out.endsWith("summary: 1 changed, 0 added, 0 removed: Runner restarts\n")).toBe(true);
  });

  it("the Server Deployment under Recreate: downtime", () => {
    const state = live(SERVER, "Deployment", "compass-server", (d) => {
      d.spec.template.spec.containers[0].env = [...(d.spec.template.spec.containers[0].env ?? []), { name: "OLD", value: "1" }];
    });
    const r = diff(state, SERVER);
    expect(r.out).toContain("    spec.template.spec.containers[server].env[OLD]: ");
    expect(consequences(r.out)).toEqual([
      "  consequence: downtime: under Recreate the Compass Server's pod stops before its new pod starts, so the Compass Server is down until the new pod is ready",
    ]);
    expect(r.code).toBe(1);
  });

  it("the Runner's token audience, Runner side alone: enrollment breaks until the Server's cluster entry follows", () => {
    const state = live(RUNNER, "DaemonSet", "compass-runner", (d) => {
      tokenOf(d).audience = "old-audience";
    });
    const r = diff(state, RUNNER);
    expect(consequences(r.out)).toContain(
      "  consequence: the Runner's token changes (audience old-audience, 3600 s to audience compass-runner, 3600 s): enrollment breaks until the Server's cluster entry (its runner-clusters file, audience and maxTokenLifetime) follows and the Server restarts",
    );
  });

  it("a token lifetime beyond the Server's maxTokenLifetime, both sides present: no entry accepts it", () => {
    const longer = handEdited(COMPASS, "DaemonSet", "compass-runner", (d) => {
      tokenOf(d).expirationSeconds = 172800;
    });
    const r = diff(live(COMPASS), longer);
    expect(consequences(r.out)).toContain(
      "  consequence: the Runner's token changes (audience compass-runner, 3600 s to audience compass-runner, 172800 s) and no cluster entry of the Server accepts it: enrollment breaks until the Server's cluster entry follows and the Server restarts",
    );
  });

  it("an admission policy: takes effect at once", () => {
    const state = live(RUNNER, "ValidatingAdmissionPolicy", "compass-runner.compass-runner-token", (p) => {
      p.spec.validations[0].expression = "true";
    });
    const r = diff(state, RUNNER);
    expect(r.out).toContain(
      '~ admissionregistration.k8s.io/ValidatingAdmissionPolicy compass-runner.compass-runner-token\n    spec.validations[0].expression: "true" -> ',
    );
    expect(consequences(r.out)).toEqual(["  consequence: takes effect at once, for every request the API server admits from then on, no restart needed"]);
  });

  it("the runner-clusters file alone: takes effect only after the Server restarts, which nothing here does", () => {
    const state = live(SERVER, "ConfigMap", "compass-server-runner-clusters", (c) => {
      c.data["clusters.yaml"] = c.data["clusters.yaml"].replace("maxTokenLifetime: 86400s", "maxTokenLifetime: 3600s");
    });
    const r = diff(state, SERVER);
    expect(r.out).toContain("    data.clusters.yaml:\n      -     maxTokenLifetime: 3600s\n      +     maxTokenLifetime: 86400s\n");
    expect(consequences(r.out)).toEqual([
      "  consequence: the Server reads its runner-clusters file at boot: the change takes effect only after the Server restarts; nothing here restarts it: kubectl rollout restart deployment/compass-server -n compass",
      "  consequence: the Server's cluster entries change (audience or token lifetime): a Runner whose token they refuse cannot enroll, once the Server restarts, until its DaemonSet follows",
    ]);
  });

  it("the NATS configuration, from values: NATS restarts in the same apply, named by its configuration's hash", () => {
    const r = diff(SERVER, valuesWith(SERVER, ["maxMemoryStoreMiB: 64", "maxMemoryStoreMiB: 128"]));
    expect(r.code).toBe(1);
    expect(r.out).toContain("    data.nats.conf:\n      -   max_memory_store: 67108864\n      +   max_memory_store: 134217728\n");
    expect(r.out).toMatch(
      /\n~ apps\/Deployment compass\/compass-server-nats\n {4}spec\.template\.metadata\.annotations\.rigging\.dev\/nats-config-sha256: "[0-9a-f]{16}" -> "[0-9a-f]{16}"\n/,
    );
    expect(consequences(r.out)).toEqual([
      "  consequence: nats-server reads its configuration at start: the change takes effect only when NATS restarts; NATS's pod template (its configuration hash) changes in the same apply, so NATS restarts with it",
      "  consequence: restarts NATS to read its changed configuration (the pod template's rigging.dev/nats-config-sha256): under Recreate its pod stops before the new one starts; until NATS is back, the Compass Server falls back to its cursor sweep for events",
    ]);
    expect(r.out.endsWith("summary: 2 changed, 0 added, 0 removed: NATS restarts\n")).toBe(true);
  });

  it("the NATS configuration alone, edited by hand: nothing here restarts NATS", () => {
    const edited = handEdited(SERVER, "ConfigMap", "compass-server-nats-config", (c) => {
      c.data["nats.conf"] = c.data["nats.conf"].replace("max_memory_store: 67108864", "max_memory_store: 134217728");
    });
    const r = diff(live(SERVER), edited);
    expect(consequences(r.out)).toEqual([
      "  consequence: nats-server reads its configuration at start: the change takes effect only when NATS restarts; nothing here restarts it: kubectl rollout restart deployment/compass-server-nats -n compass",
    ]);
    expect(r.out.endsWith("summary: 1 changed, 0 added, 0 removed: NATS configuration waits for a NATS restart\n")).toBe(true);
  });

  it("a NATS pod template that first gains the hash (an output from before it): NATS restarts once, and says why", () => {
    const state = live(SERVER, "Deployment", "compass-server-nats", (d) => {
      delete d.spec.template.metadata.annotations;
    });
    const r = diff(state, SERVER);
    expect(consequences(r.out)).toEqual([
      "  consequence: restarts NATS (its pod template gains the configuration's hash, rigging.dev/nats-config-sha256): under Recreate its pod stops before the new one starts; until NATS is back, the Compass Server falls back to its cursor sweep for events",
    ]);
  });

  it("the Server's cluster entry alone refuses the Runner's token: enrollment breaks until the Runner follows", () => {
    const shorter = handEdited(COMPASS, "ConfigMap", "compass-server-runner-clusters", (c) => {
      c.data["clusters.yaml"] = c.data["clusters.yaml"].replace("maxTokenLifetime: 86400s", "maxTokenLifetime: 30m");
    });
    const r = diff(live(COMPASS), shorter);
    expect(consequences(r.out)).toContain(
      "  consequence: the Server's cluster entries change and refuse the Runner's token (audience compass-runner, 3600 s): enrollment breaks, once the Server restarts, until the Runner's DaemonSet follows",
    );
  });
});
