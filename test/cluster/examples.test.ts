// Every bundled example, rendered, is accepted by a real kube-apiserver
// (strict server-side validation, Pod Security and the rendered policies
// included), and then really created, as a user applies it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startControlPlane, type ControlPlane } from "./support/control-plane.ts";
import { apply, deployerOf, EXAMPLES, examplePath, install, pathOf, rendered } from "./support/install.ts";

let cp: ControlPlane;
beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(async () => {
  await cp?.stop();
});

describe("the bundled examples on a real API server", () => {
  for (const example of [...EXAMPLES, "../values.example.json"]) {
    it(`${example}: accepted by a server-side dry run, then created`, async () => {
      const file = examplePath(example);
      const objects = await rendered(file);
      expect(objects.length).toBeGreaterThan(3);
      await apply(
        cp,
        objects.filter((o) => o.kind === "Namespace"),
      );
      // Everything but the Namespaces, judged by the server as it would store it, with nothing stored.
      const dry = await apply(
        cp,
        objects.filter((o) => o.kind !== "Namespace"),
        { dryRun: true, as: deployerOf(file) },
      );
      expect(dry).toMatch(/serverside-applied \(server dry run\)/);
      await install(cp, objects, deployerOf(file));
      for (const o of objects) {
        const got = await cp.api("GET", await pathOf(cp, o));
        expect(got.status, `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}: ${got.text.slice(0, 300)}`).toBe(200);
      }
    });
  }

  it("a Namespace's Pod Security labels are enforced as rendered", async () => {
    const objects = await rendered(examplePath("compass-server.yaml"));
    const ns = objects.find((o) => o.kind === "Namespace")!;
    expect(ns.metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "privileged-probe", namespace: ns.metadata.name },
      spec: { containers: [{ name: "c", image: "busybox", securityContext: { privileged: true } }] },
    };
    // No controller manager makes the namespace's default ServiceAccount: the test does.
    await install(cp, [ns, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: ns.metadata.name } }]);
    const r = await cp.api("POST", `/api/v1/namespaces/${ns.metadata.name}/pods?dryRun=All`, pod);
    expect(r.status).toBe(403);
    expect(r.json().message).toMatch(/violates PodSecurity "restricted/);
  });
});
