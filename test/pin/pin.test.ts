// `rigging pin` and `pin --check` (seed 001 D8, D9, D10) against a live
// registry on 127.0.0.1 (Debian's docker-registry, filled by this test
// through the distribution API), a bearer-token front for the anonymous
// token flow and private repositories, and registries that misbehave.
// Expected digests are computed here from the bytes pushed, never by pin.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, tempFile } from "../support/cli.ts";
import { startHostile, type HostileServer } from "../support/hostile.ts";
import { pushImage, pushIndex, startBadRegistry, startBearerFront, startRegistry, type TestFront, type TestRegistry } from "../support/registry.ts";
import { startFront } from "../support/registry-front.ts";
import { runAsync, runCliAsync } from "../support/run-async.ts";

// The line under the report that says whose its decision IDs are.
const DESIGN_NOTE = "D8, D10 are decisions of the Compass Server-on-Kubernetes design (docs/glossary.md).\n";

const PAIRED = "main-1842-3f9c2a7d1b6e";
const OLD_DIGEST = `sha256:${"0".repeat(64)}`;
let registry: TestRegistry;
let front: TestFront;
let R: string;
const digests: Record<string, string> = {};
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  R = registry.host;
  front = await startBearerFront(R, { private: ["rigelbuild/private"], basic: ["rigelbuild/basic"] });
  stops.push(
    () => front.stop(),
    () => registry.stop(),
  );
  digests.server = await pushIndex(R, "rigelbuild/compass-server", PAIRED, ["linux/amd64", "linux/arm64"]);
  digests.serverSingle = (await pushImage(R, "rigelbuild/compass-server", "linux/amd64", "single")).digest;
  digests.runner = (await pushImage(R, "rigelbuild/compass-runner", "linux/amd64", PAIRED)).digest;
  digests.nats = await pushIndex(R, "nats", "2.10.22-alpine", ["linux/amd64", "linux/arm64", "linux/s390x"]);
  digests.rootpilot = await pushIndex(R, "rootpilotsh/runner", "main-412-9e1f0c2b7a4d", ["linux/amd64"]);
  digests.private = await pushIndex(R, "rigelbuild/private", PAIRED, ["linux/amd64", "linux/arm64"]);
  digests.basic = await pushIndex(R, "rigelbuild/basic", PAIRED, ["linux/amd64", "linux/arm64"]);
}, 60_000);

afterAll(async () => {
  for (const stop of stops) await stop();
});

const example = (name: string) => readFileSync(join(ROOT, "examples", name), "utf8");
/** The example with each `image:` value (by its old text) replaced. */
const withImages = (text: string, images: Record<string, string>) =>
  Object.entries(images).reduce((t, [from, to]) => (t.includes(from) ? t.replace(from, to) : expect.fail(`no ${from} in the example`)), text);
const pin = (...args: string[]) => runAsync(["pin", ...args]);

const SERVER_EXAMPLE_IMAGE = `registry.example.com/rigelbuild/compass-server:${PAIRED}@sha256:9d2f0c8e7b6a5d4c3b2a190817263544536271809a8b7c6d5e4f3a2b1c0d9e8f`;
const NATS_EXAMPLE_IMAGE = "nats@sha256:3c0a6f5d9e8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c";
const RUNNER_EXAMPLE_IMAGE = `registry.example.com/rigelbuild/compass-runner:${PAIRED}@sha256:4b825dc642cb6eb9a060e54bf8d69288fbee4904a1e2c3d4e5f60718293a4b5c`;

describe("rigging pin against a live registry", () => {
  it("resolves a paired tag to the index digest and rewrites the file in place, comments and layout kept (a process)", async () => {
    const before = withImages(example("compass-server.yaml"), {
      [SERVER_EXAMPLE_IMAGE]: `${R}/rigelbuild/compass-server:${PAIRED}`,
      [NATS_EXAMPLE_IMAGE]: `"${R}/nats:2.10.22-alpine@${OLD_DIGEST}"`,
    });
    const file = tempFile(before, "server.yaml");
    const r = await runCliAsync(["pin", file]);
    expect(r.err).toBe(`${DESIGN_NOTE}pinned 2 image(s) in ${file}\n`);
    expect(r.code).toBe(0);
    const expected = withImages(example("compass-server.yaml"), {
      [SERVER_EXAMPLE_IMAGE]: `${R}/rigelbuild/compass-server:${PAIRED}@${digests.server}`,
      [NATS_EXAMPLE_IMAGE]: `"${R}/nats:2.10.22-alpine@${digests.nats}"`,
    });
    expect(readFileSync(file, "utf8")).toBe(expected);
    expect(r.out).toBe(
      [
        `ok   D8 image: ${R}/rigelbuild/compass-server:${PAIRED} pinned to ${digests.server}, read anonymously`,
        `ok   D10 image: ${R}/rigelbuild/compass-server@${digests.server} is an image index with linux/amd64 and linux/arm64: the Compass Server runs on amd64 and arm64 nodes (D10)`,
        `ok   D8 nats.image: ${R}/nats:2.10.22-alpine pinned to ${digests.nats}, was ${OLD_DIGEST}, read anonymously`,
        `ok   D10 nats.image: ${R}/nats@${digests.nats} is an image index with linux/amd64 and linux/arm64: NATS runs on amd64 and arm64 nodes (D10)`,
        "",
      ].join("\n"),
    );
    const again = await pin(file);
    expect(again.err).toBe(`${DESIGN_NOTE}note: ${file} is pinned already: nothing to change\n`);
    expect(readFileSync(file, "utf8")).toBe(expected);
  });

  it("refuses a single-platform Server image and writes nothing (D10)", async () => {
    const before = withImages(example("compass-server.yaml"), { [SERVER_EXAMPLE_IMAGE]: `${R}/rigelbuild/compass-server:single` });
    const file = tempFile(before, "server.yaml");
    const r = await pin(file);
    expect(r.out).toContain(
      `FAIL D10 image: ${R}/rigelbuild/compass-server@${digests.serverSingle} is a single-platform image (linux/amd64), not an image index: the Compass Server runs on amd64 and arm64 nodes (D10) (fix: publish the Compass Server's image as an index with linux/amd64 and linux/arm64`,
    );
    expect(r.err).toBe(`${DESIGN_NOTE}note: nothing written to ${file}: an image failed a check\n`);
    expect(r.code).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("accepts an amd64-only Runner, and refuses a Rootpilot index without arm64", async () => {
    const runner = tempFile(withImages(example("compass-runner.yaml"), { [RUNNER_EXAMPLE_IMAGE]: `${R}/rigelbuild/compass-runner:${PAIRED}` }), "runner.yaml");
    const ok = await pin(runner);
    expect(ok.out).toContain(
      `ok   D10 image: ${R}/rigelbuild/compass-runner@${digests.runner} is an image with linux/amd64: the Runner runs on amd64 nodes only, until an arm64 KVM boot passes`,
    );
    expect(ok.code).toBe(0);
    expect(readFileSync(runner, "utf8")).toContain(`\nimage: ${R}/rigelbuild/compass-runner:${PAIRED}@${digests.runner}\n`);

    const gke = example("rootpilot-gke.yaml");
    const oldImage = /^image: (\S+)$/m.exec(gke)![1];
    const rootpilot = tempFile(withImages(gke, { [oldImage]: `${R}/rootpilotsh/runner:main-412-9e1f0c2b7a4d` }), "rootpilot.yaml");
    const refused = await pin(rootpilot);
    expect(refused.out).toContain(
      `FAIL D10 image: ${R}/rootpilotsh/runner@${digests.rootpilot} lacks linux/arm64 (it holds linux/amd64): the Rootpilot runner runs on amd64 and arm64 nodes (D10)`,
    );
    expect(refused.code).toBe(1);
  });

  it("judges the runner section of a kind: Compass file as the Runner, the rest as the Server", async () => {
    const file = tempFile(
      withImages(example("compass.yaml"), {
        [SERVER_EXAMPLE_IMAGE]: `${R}/rigelbuild/compass-server:${PAIRED}`,
        [RUNNER_EXAMPLE_IMAGE]: `${R}/rigelbuild/compass-runner:${PAIRED}`,
        [NATS_EXAMPLE_IMAGE]: NATS_EXAMPLE_IMAGE,
      }),
      "compass.yaml",
    );
    const r = await pin(file, "--format", "json");
    const results = JSON.parse(r.out) as { id: string; check: string; outcome: string; digest?: string }[];
    expect(results.map((x) => [x.id, x.check, x.outcome, x.digest])).toEqual([
      ["D8", "server.image", "pass", digests.server],
      ["D10", "server.image", "pass", digests.server],
      ["D8", "server.nats.image", "note", undefined],
      ["D8", "runner.image", "pass", digests.runner],
      ["D10", "runner.image", "pass", digests.runner],
    ]);
    expect(r.code).toBe(0);
    expect(readFileSync(file, "utf8")).toContain(`  image: ${NATS_EXAMPLE_IMAGE}\n`);
  });

  it("--check passes a pinned file, then fails once the tag moves, and never writes", async () => {
    const file = tempFile(withImages(example("compass-runner.yaml"), { [RUNNER_EXAMPLE_IMAGE]: `${R}/rigelbuild/compass-runner:check-me` }), "runner.yaml");
    const first = (await pushImage(R, "rigelbuild/compass-runner", "linux/amd64", "check-me")).digest;
    const unpinned = await pin("--check", file);
    expect(unpinned.out).toContain(`FAIL D8 image: ${R}/rigelbuild/compass-runner:check-me is not pinned: no digest beside the tag (the tag names ${first})`);
    expect(unpinned.code).toBe(1);
    expect((await pin(file)).code).toBe(0);
    const pinned = readFileSync(file, "utf8");
    const passing = await pin("--check", file);
    expect(passing.out).toContain(`ok   D8 image: ${R}/rigelbuild/compass-runner:check-me@${first} is the tag's digest, read anonymously`);
    expect(passing.code).toBe(0);
    const moved = (await pushImage(R, "rigelbuild/compass-runner", "linux/amd64", "check-me")).digest;
    const failing = await runCliAsync(["pin", "--check", file]);
    expect(failing.out).toContain(
      `FAIL D8 image: ${R}/rigelbuild/compass-runner:check-me has moved: the tag names ${moved}, the file records ${first} (fix: run rigging pin on the file, review the new image and commit the change)`,
    );
    expect(failing.code).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(pinned);
  });

  it("follows the anonymous bearer-token challenge of a public repository", async () => {
    const tokensBefore = front.tokens();
    const file = tempFile(
      withImages(example("compass-server.yaml"), { [SERVER_EXAMPLE_IMAGE]: `${front.host}/rigelbuild/compass-server:${PAIRED}` }),
      "server.yaml",
    );
    const r = await pin(file);
    expect(r.code).toBe(0);
    expect(front.tokens()).toBeGreaterThan(tokensBefore);
    expect(readFileSync(file, "utf8")).toContain(`\nimage: ${front.host}/rigelbuild/compass-server:${PAIRED}@${digests.server}\n`);
  });

  it("refuses a private repository, whose registry demands credentials, with D9's message", async () => {
    for (const [repo, how] of [
      ["private", "demands credentials (401)"],
      ["basic", "demands credentials (basic authentication)"],
    ]) {
      const before = withImages(example("compass-server.yaml"), { [SERVER_EXAMPLE_IMAGE]: `${front.host}/rigelbuild/${repo}:${PAIRED}` });
      const file = tempFile(before, "server.yaml");
      const r = await pin(file);
      expect(r.out.split("\n").filter((line) => line.startsWith("FAIL"))).toEqual([
        `FAIL D9 image: ${front.host}/rigelbuild/${repo}:${PAIRED} is not public: ${front.host} ${how} (or the repository does not exist) (fix: make the repository public: images are read anonymously (D9), and rigging never asks for a password)`,
      ]);
      expect(r.code).toBe(1);
      expect(readFileSync(file, "utf8")).toBe(before);
    }
  });

  it("reports a tag the registry does not hold", async () => {
    const file = tempFile(
      withImages(example("compass-server.yaml"), { [SERVER_EXAMPLE_IMAGE]: `${R}/rigelbuild/compass-server:main-1-000000000000` }),
      "server.yaml",
    );
    const r = await pin(file);
    expect(r.out).toContain(`FAIL D8 image: ${R}/rigelbuild/compass-server:main-1-000000000000 is not in the registry (404)`);
    expect(r.code).toBe(1);
  });

  it("keeps an edit made while it waited for the registry: refuses, writes nothing (exit 2)", async () => {
    let file = "";
    let edited = "";
    // The registry answers the manifest only after the user has saved an edit.
    const slow = await startFront(R, (url) => {
      if (url.pathname.includes("/manifests/") && edited === "") writeFileSync(file, (edited = `${readFileSync(file, "utf8")}# saved while pin waited\n`));
      return false;
    });
    stops.push(slow.stop);
    file = tempFile(`kind: CompassRunner\nimage: ${slow.host}/rigelbuild/compass-runner:${PAIRED}\n`, "runner.yaml");
    const r = await runCliAsync(["pin", file]);
    expect(r.err).toBe(`${DESIGN_NOTE}error ${file} changed while pin read the registry: nothing written, the file is as it is now; run pin again\n`);
    expect(r.code).toBe(2);
    expect(readFileSync(file, "utf8")).toBe(edited);
    expect(edited).toContain("# saved while pin waited");
  });

  it("keeps a JSON values file JSON", async () => {
    const json = `${JSON.stringify({ kind: "CompassRunner", image: `${R}/rigelbuild/compass-runner:${PAIRED}`, namespace: "compass-runner" }, null, 2)}\n`;
    const file = tempFile(json, "values.json");
    expect((await pin(file)).code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      kind: "CompassRunner",
      image: `${R}/rigelbuild/compass-runner:${PAIRED}@${digests.runner}`,
      namespace: "compass-runner",
    });
    expect(readFileSync(file, "utf8")).toBe(json.replace(`:${PAIRED}"`, `:${PAIRED}@${digests.runner}"`));
  });
});

describe("rigging pin on what it cannot pin", () => {
  it("a values file with no image: exit 0 and a note", async () => {
    const file = tempFile("kind: CompassServer\nname: compass-server\n", "v.yaml");
    expect(await pin(file)).toEqual({ code: 0, out: "", err: `note: ${file} names no image to pin\n` });
  });

  it("an image by digest alone: left as it is, with a note", async () => {
    const text = `kind: CompassRunner\nimage: ${R}/rigelbuild/compass-runner@${digests.runner}  # by digest\n`;
    const file = tempFile(text, "v.yaml");
    const r = await pin(file);
    expect(r.out).toBe(`note D8 image: ${R}/rigelbuild/compass-runner@${digests.runner} is written by digest alone: no tag to follow, left as it is\n`);
    expect(r.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it.each([
    ["latest", `${"127.0.0.1:1"}/x:latest`, "names the latest tag, which moves with every push"],
    ["no tag", "127.0.0.1:1/x", "names no tag: nothing to follow"],
    ["credentials", "https://robot:hunter2@127.0.0.1:1/x:1", "the image is a URL, or carries a user or password"],
    ["not a reference", "127.0.0.1:1/Upper/Case:1", "is not a valid image repository"],
  ])("%s: refused, exit 1, nothing written, no credential echoed", async (_, image, message) => {
    const text = `kind: CompassRunner\nimage: ${image}\n`;
    const file = tempFile(text, "v.yaml");
    const r = await pin(file);
    expect(r.out).toContain(message);
    expect(r.out + r.err).not.toContain("hunter2");
    expect(r.code).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("usage: one values file, a kind, not stdin", async () => {
    expect((await pin()).err).toContain("pin takes one values file, got 0");
    expect((await pin("-")).err).toContain("pin rewrites its values file in place: give a file, not -");
    const noKind = tempFile("image: x:1\n", "v.yaml");
    expect((await pin(noKind)).err).toContain("no top-level kind; expected one of");
    for (const r of [await pin(), await pin("-"), await pin(noKind)]) expect(r.code).toBe(2);
  });
});

describe("rigging pin against registries that misbehave: a bounded, clear exit 2", () => {
  const hostile: HostileServer[] = [];
  afterAll(async () => {
    for (const s of hostile) await s.stop();
  });

  async function pinAt(host: string, ...args: string[]) {
    const text = `kind: CompassRunner\nimage: ${host}/rigelbuild/compass-runner:${PAIRED}\n`;
    const file = tempFile(text, "v.yaml");
    const r = await runCliAsync(["pin", file, ...args]);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(r.out).toBe("");
    expect(r.code).toBe(2);
    return r.err;
  }

  it("garbage that is not HTTP", async () => {
    const server = await startHostile("garbage");
    hostile.push(server);
    expect(await pinAt(`127.0.0.1:${server.port}`)).toBe(`error 127.0.0.1:${server.port}: its answer is not HTTP\n`);
  });

  it("a manifest that is not JSON (with a terminal escape in it)", async () => {
    const bad = await startBadRegistry("not-json");
    stops.push(bad.stop);
    expect(await pinAt(bad.host)).toBe(`error ${bad.host}: the answer for ${bad.host}/rigelbuild/compass-runner:${PAIRED} is not a manifest (not JSON)\n`);
  });

  it("a manifest that never ends", async () => {
    const bad = await startBadRegistry("huge");
    stops.push(bad.stop);
    expect(await pinAt(bad.host)).toBe(`error ${bad.host}: the answer for ${bad.host}/rigelbuild/compass-runner:${PAIRED} is larger than 4 MiB\n`);
  });

  it("a redirect loop", async () => {
    const bad = await startBadRegistry("redirect-loop");
    stops.push(bad.stop);
    expect(await pinAt(bad.host)).toBe(`error ${bad.host}: more than 5 redirects for ${bad.host}/rigelbuild/compass-runner:${PAIRED}\n`);
  });

  it("nothing at all, until --timeout", async () => {
    const server = await startHostile("silent");
    hostile.push(server);
    expect(await pinAt(`127.0.0.1:${server.port}`, "--timeout", "1")).toBe("error cannot read the registry: no answer within 1 s (--timeout 1)\n");
  });

  it("nobody listening", async () => {
    expect(await pinAt("127.0.0.1:1")).toBe("error 127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1\n");
  });
});

describe("the values a render takes", () => {
  it("a pinned file still renders (the paired tag beside the digest)", async () => {
    const file = tempFile(withImages(example("compass-runner.yaml"), { [RUNNER_EXAMPLE_IMAGE]: `${R}/rigelbuild/compass-runner:${PAIRED}` }), "runner.yaml");
    expect((await pin(file)).code).toBe(0);
    const r = await runAsync(["render", file]);
    expect(r.err).not.toMatch(/^error/m);
    expect(r.out).toContain(`image: ${R}/rigelbuild/compass-runner@${digests.runner}`);
  });
});
