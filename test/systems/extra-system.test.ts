// Adding a system is its folder plus one registry line: a fourth system from
// a fixture folder (test/fixtures/systems/lantern), registered in the real
// registry here, renders, is checked by its own rule, is listed by `rules`, and `pin`
// asks of its image what its record asks.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { imagesOf } from "../../src/pin/sites.ts";
import { platformResult } from "../../src/pin/platforms.ts";
import { parseReference, type PinReference } from "../../src/pin/reference.ts";
import { EXAMPLE, lanternSystem } from "../fixtures/systems/lantern/system.ts";
import { ROOT, runInProcess, tempDir } from "../support/cli.ts";
import { NOT_REGISTRY_WIDE, REGISTRY_WIDE } from "../support/registry-wide.ts";
import config from "../../vitest.config.ts";
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

  it("the with-lantern project of vitest.config.ts runs exactly that list, with the Lantern registered", () => {
    const project = config.test?.projects?.find((p) => typeof p === "object" && "test" in p && p.test?.name === "with-lantern") as
      | { test: { include: string[]; env: Record<string, string> } }
      | undefined;
    expect(project?.test.include).toEqual([...REGISTRY_WIDE]);
    expect(project?.test.env).toEqual({ RIGGING_TEST_EXTRA_SYSTEM: "lantern" });
  });
});
