// kube-schemas/ for the built API server's minor version says what that API
// server serves: the same kinds, and for each the same fields, types and
// required lists and enums, followed through every nested model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/cli.ts";
import { startControlPlane, type ControlPlane } from "./support/control-plane.ts";
import { beyondClients, compareModels, served, serverMinor, type BeyondClients, type KubeSchemas, type Served } from "./support/openapi.ts";
import { servedFile } from "../../scripts/kube-served.ts";

let cp: ControlPlane;
let server: Served;
let minor: string;
let bundled: KubeSchemas;

beforeAll(async () => {
  cp = await startControlPlane();
  minor = await serverMinor(cp);
  bundled = JSON.parse(readFileSync(join(ROOT, "kube-schemas", `${minor}.json`), "utf8")) as KubeSchemas;
  server = await served(cp);
});
afterAll(async () => {
  await cp?.stop();
});

describe("kube-schemas against the API server's OpenAPI v3", () => {
  it("lists every kind each served group-version can create, and no other", () => {
    const differences: string[] = [];
    for (const [apiVersion, kinds] of server.kinds) {
      const ours = Object.keys(bundled.kinds[apiVersion] ?? {});
      for (const kind of kinds.keys()) if (!ours.includes(kind)) differences.push(`${apiVersion} ${kind}: served, missing from kube-schemas/${minor}.json`);
      for (const kind of ours) if (!kinds.has(kind)) differences.push(`${apiVersion} ${kind}: in kube-schemas/${minor}.json, not served`);
    }
    expect(server.kinds.size).toBeGreaterThan(15);
    expect(differences).toEqual([]);
  });

  it("gives every served kind the server's fields, types and required lists", () => {
    const differences: string[] = [];
    let compared = 0;
    for (const [apiVersion, kinds] of server.kinds) {
      for (const [kind, name] of kinds) {
        const model = bundled.kinds[apiVersion]?.[kind];
        if (!model) continue;
        compared++;
        differences.push(...compareModels(server.schemas, bundled, [name, model], `${apiVersion} ${kind}`));
      }
    }
    expect(compared).toBeGreaterThan(40);
    expect(differences.sort()).toEqual([]);
  });

  it("adds what the clients lack from the served OpenAPI: scripts/kube-specs/served-1.N.json is what the server serves now", () => {
    const snapshot = JSON.parse(readFileSync(join(ROOT, servedFile(minor)), "utf8")) as BeyondClients;
    const now = beyondClients(server, bundled);
    expect(Object.keys(now.enums).length).toBeGreaterThan(50);
    expect(now.enums["V1Container.imagePullPolicy"]).toEqual(["Always", "IfNotPresent", "Never"]);
    // A newer API server: npx tsx scripts/kube-served.ts, then npm run schemas.
    expect(snapshot).toEqual(now);
  });
});
