// `rigging pin --update`, `--update --dry-run` and `--outdated` (seed 001
// D8-D10) against Debian's docker-registry on 127.0.0.1, filled through the
// distribution API, with a front before it where a test must act while
// pin reads (pages of a tag list, a tag gone between list and read) or the
// registry must misbehave. Expected digests are computed from the bytes
// pushed, never by pin.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, tempFile } from "../support/cli.ts";
import { startFront, type BeforeHook } from "../support/registry-front.ts";
import { pushImage, pushIndex, startRegistry, type TestRegistry } from "../support/registry.ts";
import { runAsync, runCliAsync } from "../support/run-async.ts";

const BOTH = ["linux/amd64", "linux/arm64"];
const build = (n: number) => `main-${n}-${n.toString(16).padStart(12, "0")}`;
let registry: TestRegistry;
let R: string;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  R = registry.host;
  stops.push(() => registry.stop());
}, 60_000);

afterAll(async () => {
  for (const stop of stops) await stop();
});

const server = (image: string) => tempFile(`kind: CompassServer\n# the Server's build\nimage: ${image}  # paired tag\nname: compass\n`, "server.yaml");
const pin = (...args: string[]) => runAsync(["pin", ...args]);

async function front(hook: BeforeHook) {
  const f = await startFront(R, hook);
  stops.push(f.stop);
  return f;
}

describe("pin --update against a live registry", () => {
  it("moves to the highest n in paired form, including one pushed later; --dry-run and --outdated write nothing", async () => {
    const repo = "update/compass-server";
    await pushIndex(R, repo, build(1842), BOTH);
    await pushIndex(R, repo, build(1849), BOTH);
    const d1850 = await pushIndex(R, repo, build(1850), BOTH);
    // Tags that are not paired, or not of main, name no build.
    for (const tag of ["latest", "main-99999-3f9c2a7d1b6", "main-99999-3f9c2a7d1b6e-arm64", "pr-99999-3f9c2a7d1b6e"]) await pushIndex(R, repo, tag, BOTH);
    const file = server(`${R}/${repo}:${build(1842)}`);
    const before = readFileSync(file, "utf8");

    const dry = await pin("--update", "--dry-run", file);
    expect(dry.out.split("\n")[1]).toMatch(
      new RegExp(`^move +image +${build(1842)} +${build(1850)} +${R}/${repo}@${d1850} is an image index with linux/amd64 and linux/arm64`),
    );
    expect(dry.err).toBe(`note: ${file} not written (--dry-run)\n`);
    expect(dry.code).toBe(0);
    const outdated = await pin("--outdated", file);
    expect(outdated.out).toBe(dry.out);
    expect(outdated.code).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(before);

    const d1851 = await pushIndex(R, repo, build(1851), BOTH);
    const moved = await runCliAsync(["pin", "--update", file]);
    expect(moved.err).toBe(`moved 1 image(s) to a newer build in ${file}\n`);
    expect(moved.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(before.replace(`:${build(1842)}`, `:${build(1851)}@${d1851}`));

    const after = await pin("--outdated", file, "--format", "json");
    expect(JSON.parse(after.out)).toEqual([
      {
        check: "image",
        image: `${R}/${repo}:${build(1851)}@${d1851}`,
        from: build(1851),
        state: "newest",
        message: `${build(1851)} is the newest build in the registry`,
      },
    ]);
    expect(after.code).toBe(0);
  });

  it("follows the tag list's Link pages (?n= and last=)", async () => {
    const repo = "update/paged";
    for (const n of [1, 2, 3, 4, 5]) await pushIndex(R, repo, build(n), BOTH);
    const newest = await pushIndex(R, repo, build(7), BOTH);
    // Debian's docker-registry (distribution 2.8) sends a tag list whole; the
    // front pages it as the distribution spec says: in lexical order (the
    // newest build last here), two tags a page, each page linking the next.
    const paged = await front(async (url, _req, res) => {
      if (!url.pathname.endsWith("/tags/list")) return false;
      const { tags } = (await (await fetch(`http://${R}${url.pathname}`)).json()) as { tags: string[] };
      tags.sort();
      const last = url.searchParams.get("last");
      const start = last === null ? 0 : tags.indexOf(last) + 1;
      const page = tags.slice(start, start + 2);
      const more = start + 2 < tags.length;
      const link = more ? { link: `<${url.pathname}?n=2&last=${page.at(-1)}>; rel="next"` } : {};
      res.writeHead(200, { "content-type": "application/json", ...link }).end(JSON.stringify({ name: repo, tags: page }));
      return true;
    });
    const file = server(`${paged.host}/${repo}:${build(1)}`);
    const r = await pin("--update", file);
    expect(r.code).toBe(0);
    expect(readFileSync(file, "utf8")).toContain(`image: ${paged.host}/${repo}:${build(7)}@${newest}  # paired tag\n`);
    const pages = paged.asked.filter((path) => path.includes("/tags/list"));
    expect(pages).toHaveLength(3);
    expect(pages[0]).toBe(`/v2/${repo}/tags/list?n=1000`);
    expect(pages.slice(1).every((path) => path.startsWith(`/v2/${repo}/tags/list?n=2&last=`))).toBe(true);
  });

  it("does not move the Server to an amd64-only build, and names the newest that passes; moves the Runner to it", async () => {
    const s = "update/split-server";
    const rn = "update/split-runner";
    await pushIndex(R, s, build(10), BOTH);
    const s11 = await pushIndex(R, s, build(11), BOTH);
    const s12 = (await pushImage(R, s, "linux/amd64", build(12))).digest;
    await pushImage(R, rn, "linux/amd64", build(10));
    const r12 = (await pushImage(R, rn, "linux/amd64", build(12))).digest;
    const text = `kind: Compass\nserver:\n  image: ${R}/${s}:${build(10)}\nrunner:\n  image: "${R}/${rn}:${build(10)}"\n`;
    const file = tempFile(text, "compass.yaml");
    const r = await pin("--update", file, "--format", "json");
    const rows = JSON.parse(r.out) as { check: string; state: string; to?: string; digest?: string; message: string }[];
    expect(rows.map((x) => [x.check, x.state, x.to, x.digest])).toEqual([
      ["server.image", "held", build(11), s11],
      ["runner.image", "move", build(12), r12],
    ]);
    expect(rows[0].message).toBe(
      `the newest build, ${build(12)}, is not moved to: ${R}/${s}@${s12} is a single-platform image (linux/amd64), not an image index: the Compass Server runs on amd64 and arm64 nodes (D10); the newest build that passes is ${build(11)}`,
    );
    expect(r.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(text.replace(`${rn}:${build(10)}"`, `${rn}:${build(12)}@${r12}"`));
  });

  it("a tag gone between the list and the read: a clear error, nothing written", async () => {
    const repo = "update/deleted";
    await pushIndex(R, repo, build(1), BOTH);
    await pushIndex(R, repo, build(2), BOTH);
    // The registry lists build 2, and holds it no more when pin reads it.
    const racing = await front((url, _req, res) => {
      if (!url.pathname.endsWith(`/manifests/${build(2)}`)) return false;
      res.writeHead(404, { "content-type": "application/json" }).end('{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}');
      return true;
    });
    const file = server(`${racing.host}/${repo}:${build(1)}`);
    const before = readFileSync(file, "utf8");
    const r = await pin("--update", file);
    expect(r.out).toContain(
      `D8 ${racing.host}/${repo}:${build(2)} was in the registry's tag list and is not in the registry now (deleted since): nothing moved`,
    );
    expect(r.err).toBe(`note: nothing written to ${file}: an image could not be followed\n`);
    expect(r.code).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("leaves an image without a paired tag as it is, and says so", async () => {
    const file = tempFile(`kind: CompassRunner\nimage: ${R}/update/other:v1.2.3\n`, "runner.yaml");
    const r = await pin("--outdated", file);
    expect(r.out).toContain("kept   image  v1.2.3  -   not a paired main-<n>-<sha12> tag: no build order to follow, left as it is\n");
    expect(r.code).toBe(0);
  });
});

describe("pin --update on registries that refuse or misbehave", () => {
  it.each([
    [401, 'Basic realm="registry"', "demands credentials (basic authentication)"],
    [403, undefined, "refuses anonymous reads (403)"],
  ])("%i to an anonymous tag list is a D9 finding; no credential is read or sent", async (status, challenge, how) => {
    const seen: (string | undefined)[] = [];
    const refusing = await front((_url, req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(status, challenge ? { "www-authenticate": challenge } : {}).end();
      return true;
    });
    // Credentials where Docker keeps them: pin must not read them.
    const home = tempDir();
    mkdirSync(join(home, ".docker"));
    const auth = Buffer.from("robot:hunter2").toString("base64");
    writeFileSync(join(home, ".docker", "config.json"), JSON.stringify({ auths: { [refusing.host]: { auth } } }));
    const file = server(`${refusing.host}/update/private:${build(1)}`);
    const before = readFileSync(file, "utf8");
    const r = await runCliAsync(["pin", "--update", file], { HOME: home, DOCKER_CONFIG: join(home, ".docker") });
    expect(r.out).toContain(`FAIL   image  ${build(1)}  -   D9 the tags of ${refusing.host}/update/private is not public: ${refusing.host} ${how}`);
    expect(r.code).toBe(1);
    expect(seen).toEqual([undefined]);
    expect(r.out + r.err).not.toContain("hunter2");
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("a tag list that is not JSON: exit 2, nothing written", async () => {
    const bad = await front((_url, _req, res) => (res.writeHead(200, { "content-type": "application/json" }).end("<html>\u001b[2J</html>"), true));
    const file = server(`${bad.host}/update/x:${build(1)}`);
    const r = await pin("--update", file);
    expect(r.err).toBe(`error ${bad.host}: the tags of ${bad.host}/update/x are not a tag list (not JSON)\n`);
    expect(r.code).toBe(2);
  });

  it("a tag list without end: refused at its bound, exit 2", async () => {
    const huge = await front((_url, _req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"name":"update/x","tags":[');
      const chunk = `${'"main-1-000000000001",'.repeat(4096)}`;
      let sent = 0;
      const pump = () => {
        while (!res.destroyed && sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => (sent = Number.POSITIVE_INFINITY));
      pump();
      return true;
    });
    const file = server(`${huge.host}/update/x:${build(1)}`);
    const r = await runCliAsync(["pin", "--update", file]);
    expect(r.err).toBe(`error ${huge.host}: the answer for the tags of ${huge.host}/update/x is larger than 1 MiB\n`);
    expect(r.code).toBe(2);
  });

  it("usage: --update, --check and --outdated exclude each other; --dry-run needs --update", async () => {
    const file = server(`${R}/update/x:${build(1)}`);
    const both = await pin("--update", "--check", file);
    expect(both.err).toBe("error pin: --check and --update exclude each other\n");
    const dry = await pin("--dry-run", file);
    expect(dry.err).toBe("error pin: --dry-run goes with --update (pin --update --dry-run VALUES)\n");
    expect([both.code, dry.code]).toEqual([2, 2]);
  });
});
