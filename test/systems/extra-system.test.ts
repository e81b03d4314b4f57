// Adding a system is its folder plus one registry line: a fourth system from
// a fixture folder (test/fixtures/systems/lantern), registered in the real
// registry here, renders, is checked by its own rule, is listed by `rules`, and `pin`
// asks of its image what its record asks.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { imagesOf } from "../../src/pin/sites.ts";
import { platformResult } from "../../src/pin/platforms.ts";
import { parseReference, type PinReference } from "../../src/pin/reference.ts";
import { EXAMPLE, lanternSystem } from "../fixtures/systems/lantern/system.ts";
import { ROOT, runInProcess, tempDir } from "../support/cli.ts";
import { NOT_REGISTRY_WIDE, REGISTRY_WIDE } from "../support/registry-wide.ts";
import { SYSTEMS, catalog, kinds, registerSystem } from "../../src/systems/registry.ts";

// Registered in the real registry, unmocked: every lookup from here on sees the Lantern.
registerSystem(lanternSystem);

const example = join(ROOT, EXAMPLE);
const objectsOf = (stream: string) => parseAllDocuments(stream).flatMap((doc) => doc.toJS() ?? []);

describe("a system added by one registry line", () => {
  it("is in the registry with its values kind", () => {
    expect(SYSTEMS.at(-1)).toBe(lanternSystem);
    expect(kinds()).toContain("Lantern");
  });

  it("renders its example, with its notes on stderr", () => {
    const rendered = runInProcess(["render", example]);
    expect(rendered.err).toContain("The Lantern is lit.");
    expect(rendered.code).toBe(0);
    const objects = objectsOf(rendered.out);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(["Namespace/beacons", "Deployment/lantern"]);
  });

  it("a values file of another kind is refused with the Lantern among the kinds", () => {
    const file = join(tempDir(), "v.yaml");
    writeFileSync(file, "kind: Lanterns\n");
    const refused = runInProcess(["render", file]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("did you mean Lantern?");
  });

  it("check runs its rule on its objects, recognised by their label", () => {
    const objects = objectsOf(runInProcess(["render", example]).out);
    objects[1].spec.replicas = 2;
    const file = join(tempDir(), "lantern.yaml");
    writeFileSync(file, objects.map((o) => stringify(o)).join("---\n"));
    const checked = runInProcess(["check", "--format", "json", file]);
    expect(checked.code).toBe(1);
    const findings = JSON.parse(checked.out);
    expect(findings).toEqual([expect.objectContaining({ ruleId: "LN-01", profile: "lantern", severity: "error" })]);
    expect(runInProcess(["check", "--format", "json", "--profile", "lantern", file]).out).toContain('"LN-01"');
  });

  it("rules --format json lists its rule for it, and the general rules apply to it", () => {
    const listed = JSON.parse(runInProcess(["rules", "--format", "json"]).out) as { id: string; profiles: string[] }[];
    expect(listed.find((r) => r.id === "LN-01")?.profiles).toEqual(["lantern"]);
    expect(listed.find((r) => r.id === "G-05")?.profiles).toContain("lantern");
    // Its ID prefix sorts after the systems before it in the registry.
    expect(catalog.requirements().at(-1)?.id).toBe("LN-01");
  });

  it("pin asks of its image what its record asks (D10), not another system's platforms", () => {
    const { sites } = imagesOf(readFileSync(example, "utf8"), example);
    expect(sites.map((s) => [s.path, s.need])).toEqual([["image", lanternSystem.image]]);
    const ref = parseReference(sites[0].text) as PinReference;
    const digest = `sha256:${"1".repeat(64)}`;
    const multiArch = platformResult(sites[0], ref, { digest, kind: "index", mediaType: "", platforms: ["linux/amd64", "linux/arm64"] });
    expect(multiArch).toMatchObject({ outcome: "fail", message: expect.stringContaining("lacks linux/riscv64") });
    expect(multiArch.message).toContain("the Lantern runs on riscv64 boards only");
    const own = platformResult(sites[0], ref, { digest, kind: "image", mediaType: "", platforms: ["linux/riscv64"] });
    expect(own.outcome).toBe("pass");
  });
});

describe("every registry-wide test, run again with the Lantern registered", () => {
  /** Test files that read the registry's lists: the systems, kinds, names or ID prefixes. */
  const readers = readdirSync(join(ROOT, "test"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => `test/${f}`)
    .filter((f) => /\b(SYSTEMS|CORPUS_SYSTEMS)\b|\b(valuesKinds|kinds)\(\)|catalog\.(names|idPrefixes)\(\)/.test(readFileSync(join(ROOT, f), "utf8")));

  it("names each test that reads the registry's lists: registry-wide, or why not", () => {
    expect(readers.length).toBeGreaterThan(REGISTRY_WIDE.length);
    for (const file of readers) expect([...REGISTRY_WIDE, ...Object.keys(NOT_REGISTRY_WIDE)], file).toContain(file);
    for (const file of REGISTRY_WIDE) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it("they pass, and judge the Lantern by name", async () => {
    const report = join(tempDir(), "report.json");
    const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs");
    const run = await runAsyncProcess(
      process.execPath,
      [vitest, "run", "--maxWorkers=1", "--minWorkers=1", "--reporter=json", `--outputFile=${report}`, ...REGISTRY_WIDE],
      {
        RIGGING_TEST_EXTRA_SYSTEM: "lantern",
      },
    );
    const results = JSON.parse(readFileSync(report, "utf8")) as VitestReport;
    const failed = results.testResults.flatMap((file) => file.assertionResults.filter((t) => t.status === "failed").map((t) => t.fullName));
    expect(failed, run.err.slice(-2000)).toEqual([]);
    expect(results.testResults.map((file) => relative(ROOT, file.name)).sort()).toEqual([...REGISTRY_WIDE].sort());
    expect(run.code, run.err.slice(-3000)).toBe(0);
    // The Lantern is judged, not merely present: its ID, kind or name shows in tests of most files.
    const naming = results.testResults.filter((file) => file.assertionResults.some((t) => /\b(LN-01|Lantern|lantern)\b/.test(t.fullName)));
    expect(naming.length).toBeGreaterThanOrEqual(REGISTRY_WIDE.length / 2);
  });
});

interface VitestReport {
  testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[];
}

function runAsyncProcess(command: string, args: string[], env: Record<string, string>): Promise<{ code: number; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, err }));
  });
}
