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
import { readOpenApiVersion } from "../../scripts/kube-openapi.mjs";
import { spawnSync } from "node:child_process";

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

describe("kube-schemas read from a release's own OpenAPI (scripts/kube-openapi.mjs), for the API server's release", () => {
  // The releases no client carries (1.26, 1.31, 1.35, 1.37) are read this way; here the reader meets the server it describes.
  let fromOpenApi: KubeSchemas;
  beforeAll(() => {
    // The module the test API server is built from, as its go.sum pins it.
    const download = spawnSync("go", ["mod", "download", "-json", "k8s.io/kubernetes"], {
      cwd: join(ROOT, "tools/go/kube-apiserver"),
      encoding: "utf8",
      env: { ...process.env, GOFLAGS: "-mod=readonly" },
    });
    const { Dir, Version } = JSON.parse(download.stdout) as { Dir: string; Version: string };
    const snapshot = JSON.parse(readFileSync(join(ROOT, servedFile(minor)), "utf8")) as BeyondClients;
    fromOpenApi = readOpenApiVersion(
      minor,
      { tag: Version },
      {
        checkedFormats: new Set(["byte", "int32", "int64", "date-time"]),
        enumOf: (model: string, field: string) => snapshot.enums[`${model}.${field}`],
        specDir: Dir,
      },
    );
  });

  it("lists every kind the server can create, and no other", () => {
    const differences: string[] = [];
    for (const [apiVersion, kinds] of server.kinds) {
      const ours = Object.keys(fromOpenApi.kinds[apiVersion] ?? {}).sort();
      if (ours.join() !== [...kinds.keys()].sort().join()) differences.push(`${apiVersion}: served ${[...kinds.keys()].sort()}, read ${ours}`);
    }
    expect(differences).toEqual([]);
    // The spec lists the alpha and beta APIs a cluster may turn on, as the clients do; every stable one is served.
    const offByDefault = Object.keys(fromOpenApi.kinds).filter((apiVersion) => !server.kinds.has(apiVersion));
    expect(offByDefault.filter((apiVersion) => !/\/v\d+(?:alpha|beta)\d+$/.test(apiVersion))).toEqual([]);
  });

  it("gives every served kind the server's fields, types, required lists and enums", () => {
    const differences: string[] = [];
    let compared = 0;
    for (const [apiVersion, kinds] of server.kinds)
      for (const [kind, name] of kinds) {
        compared++;
        differences.push(...compareModels(server.schemas, fromOpenApi, [name, fromOpenApi.kinds[apiVersion]?.[kind] ?? "?"], `${apiVersion} ${kind}`));
      }
    expect(compared).toBeGreaterThan(40);
    expect(differences.sort()).toEqual([]);
  });
});
