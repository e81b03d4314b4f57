// Property tests of the two output writers over random prior contents:
// foreign files and directories, earlier outputs (with a manifest, from a
// rigging without manifests, left half-written by a killed run), dangling
// symlinks and symlinks out of the directory. Whatever was there, no file
// rigging did not write is lost or changed; a write either succeeds and
// leaves exactly the new files, or is refused and changes nothing.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.ts";
import { kustomizationOf } from "../../src/emit/emit.ts";
import { MANIFEST, manifestText, writeDirectory } from "../../src/emit/output-dir.ts";
import { entryOf, fleetListing, inside, writeFleetMember } from "../../src/emit/output-fleet.ts";
import { tree } from "../support/output-tree.ts";
import { runs } from "../support/runs.ts";

let base: string;
let roots = 0;
beforeAll(() => void (base = mkdtempSync(join(tmpdir(), "rigging-oprop-"))));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A fresh root per run, holding `outside/kept.txt` that symlinks may point at. */
function freshRoot(): string {
  const root = join(base, String(roots++));
  mkdirSync(join(root, "outside"), { recursive: true });
  writeFileSync(join(root, "outside", "kept.txt"), "outside\n");
  return root;
}

// Names of both layouts: one file per object, or manifests.yaml (a write may switch between them).
const NAMES = ["01-a.yaml", "02-b.yaml", "03-c.yaml", "kustomization.yaml", "manifests.yaml", "x.yaml"];
/** A set of rendered files: names and texts. */
const filesArb = fc
  .uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: NAMES.length })
  .chain((names) => fc.tuple(...names.map((name) => fc.string({ maxLength: 12 }).map((text) => [name, `${name}: ${JSON.stringify(text)}\n`] as const))))
  .map((pairs) => new Map<string, string>(pairs));

type Kind = "file" | "dir" | "dangling" | "link-out";
const foreignArb = fc.array(
  fc
    .record({
      name: fc.constantFrom("notes.txt", "01-a.yaml", "kustomization.yaml", ".git", ".x.yaml.tmp", "sub", MANIFEST),
      kind: fc.constantFrom<Kind>("file", "dir", "dangling", "link-out"),
    })
    // A lone file named like the manifest is rigging's (a killed run's first manifest): documented as reserved.
    .map((f) => (f.kind === "file" && f.name === MANIFEST ? { ...f, name: "notes.txt" } : f)),
  { maxLength: 3 },
);

/** The manifest of a complete output of `files`: their names and each one's SHA-256. */
function manifestWith(files: ReadonlyMap<string, string>): string {
  const sums = new Map([...files].map(([name, text]) => [name, [createHash("sha256").update(text).digest("hex")]]));
  return manifestText([...files.keys()], sums);
}

/** An output as a rigging without manifests wrote it: a kustomization.yaml listing the other files. */
function writeOlder(dir: string, files: ReadonlyMap<string, string>): string[] {
  mkdirSync(dir, { recursive: true });
  const resources = [...files.keys()].filter((n) => n !== "kustomization.yaml");
  for (const name of resources) writeFileSync(join(dir, name), files.get(name)!);
  writeFileSync(join(dir, "kustomization.yaml"), kustomizationOf(resources));
  return [...resources, "kustomization.yaml"];
}

/** Makes a foreign entry; answers whether it was made (the name was free). */
function makeForeign(dir: string, name: string, kind: Kind, root: string): boolean {
  const path = join(dir, name);
  if (existsSync(path) || lstatSync(path, { throwIfNoEntry: false })) return false;
  mkdirSync(dir, { recursive: true });
  if (kind === "file") writeFileSync(path, `mine: ${name}\n`);
  if (kind === "dir") {
    mkdirSync(path);
    writeFileSync(join(path, "inner.txt"), "mine\n");
  }
  if (kind === "dangling") symlinkSync(join(root, "nowhere"), path);
  if (kind === "link-out") symlinkSync(join(root, "outside"), path);
  return true;
}

/** Every path of `before` that is not rigging's must be in `after`, unchanged. */
function keptAll(before: Record<string, string>, after: Record<string, string>, foreign: (path: string) => boolean): void {
  for (const [path, value] of Object.entries(before)) if (foreign(path)) expect(after[path], path).toBe(value);
}

const writerPrior = fc.oneof(
  fc.constant({ kind: "absent" as const }),
  fc.constant({ kind: "empty" as const }),
  fc.constant({ kind: "begun" as const }), // a killed run's first manifest, not yet written
  filesArb.map((files) => ({ kind: "earlier" as const, files })),
  filesArb.map((files) => ({ kind: "older" as const, files })), // from a rigging without manifests
  // What a run killed half-way leaves: a manifest listing old, new and
  // temporary names, and any of those files, complete or cut short.
  fc
    .record({ old: filesArb, next: filesArb, present: fc.array(fc.boolean(), { minLength: 15, maxLength: 15 }) })
    .map((c) => ({ kind: "killed" as const, ...c })),
);

describe("writeDirectory (-o DIR) over random prior contents", () => {
  it("never loses or changes a foreign file; succeeds exactly when DIR is rigging's, leaving exactly the new files", async () => {
    await fc.assert(
      loopProperty(writerPrior, foreignArb, filesArb, (prior, foreign, next) => {
        const root = freshRoot();
        const out = join(root, "out");
        let listed: string[] = [];
        if (prior.kind !== "absent") mkdirSync(out);
        if (prior.kind === "begun") writeFileSync(join(out, MANIFEST), "");
        if (prior.kind === "earlier") {
          writeDirectory(out, prior.files);
          listed = [...prior.files.keys()];
        }
        if (prior.kind === "older") listed = writeOlder(out, prior.files);
        if (prior.kind === "killed") {
          const names = [...new Set([...prior.old.keys(), ...prior.next.keys(), ...[...prior.next.keys()].map((n) => `.${n}.tmp`)])];
          writeFileSync(join(out, MANIFEST), manifestText(names));
          names.forEach((name, i) => prior.present[i] && writeFileSync(join(out, name), `partial ${name}`.slice(0, i + 3)));
          listed = names;
        }
        const owned = new Set([...listed, ...(existsSync(join(out, MANIFEST)) ? [MANIFEST, `${MANIFEST}.new`] : [])]);
        // Only entries rigging cannot take for its own are foreign.
        const made = foreign.filter((f) => makeForeign(out, f.name, f.kind, root) && !(f.kind === "file" && owned.has(f.name)));
        const madeForeign = made.length > 0;
        const before = tree(root);
        const isForeign = (path: string) => !path.startsWith("out/") || made.some((f) => path === `out/${f.name}` || path.startsWith(`out/${f.name}/`));

        let error: unknown;
        try {
          // --force: a prior's files may differ from `next` and carry no checksum.
          writeDirectory(out, next, [], true);
        } catch (caught) {
          error = caught;
        }
        const after = tree(root);
        keptAll(before, after, isForeign);
        if (madeForeign) {
          expect(error).toBeInstanceOf(UsageError);
          expect(after).toEqual(before);
        } else {
          expect(error).toBeUndefined();
          expect(tree(out)).toEqual(Object.fromEntries([...next, [MANIFEST, manifestWith(next)]]));
        }
      }),
      { numRuns: runs(300) },
    );
  });
});

type Current = "absent" | "ours" | "ours-twice" | "older-dir" | "older-legacy" | "foreign-dir" | "foreign-file" | "dangling" | "link-out" | "ours-with-foreign";
type Leftover =
  | "complete"
  | "partial"
  | "empty"
  | "begun"
  | "foreign-dir"
  | "foreign-file"
  | "link-ours"
  | "link-foreign"
  | "link-file"
  | "legacy-old"
  | "partial-new";

describe("writeFleetMember (a fleet's OUT/NAME) over random prior contents", () => {
  it("never loses a foreign file nor touches another NAME; succeeds exactly when OUT/NAME is rigging's, leaving it exactly the new files and no leftover of its own", async () => {
    const currentArb = fc.constantFrom<Current>(
      "absent",
      "ours",
      "ours-twice",
      "older-dir",
      "older-legacy",
      "foreign-dir",
      "foreign-file",
      "dangling",
      "link-out",
      "ours-with-foreign",
    );
    const leftoverArb = fc.record({
      kind: fc.constantFrom<Leftover>(
        "complete",
        "partial",
        "empty",
        "begun",
        "foreign-dir",
        "foreign-file",
        "link-ours",
        "link-foreign",
        "link-file",
        "legacy-old",
        "partial-new",
      ),
      n: fc.integer({ min: 1, max: 4 }),
    });
    await fc.assert(
      // readEarlier: OUT was read (fleetListing) before the prior contents
      // appeared, so the path for a new NAME is asked for and must hand over
      // to the general path whenever anything is in its way.
      loopProperty(currentArb, fc.array(leftoverArb, { maxLength: 4 }), filesArb, filesArb, fc.boolean(), (current, leftovers, old, next, readEarlier) => {
        const root = freshRoot();
        const out = join(root, "out");
        mkdirSync(out);
        const east = join(out, "east");
        const hiddenOf = () => fleetListing(out).leftovers.get("east") ?? [];
        writeFleetMember(out, "west", old, []);
        /** Paths (under root) of what rigging did not write, each with all beneath it. */
        const foreign = ["out/west", `out/${readlinkSync(join(out, "west"))}`];
        if (current === "ours" || current === "ours-twice" || current === "ours-with-foreign") writeFleetMember(out, "east", old, hiddenOf());
        if (current === "ours-twice") writeFleetMember(out, "east", next, hiddenOf());
        if (current === "ours-with-foreign") {
          writeFileSync(join(out, readlinkSync(east), "notes.txt"), "mine\n");
          foreign.push(`out/${readlinkSync(east)}/notes.txt`);
        }
        if (current === "older-dir") writeDirectory(east, old);
        if (current === "older-legacy") writeOlder(east, old);
        if (current === "foreign-dir" || current === "foreign-file" || current === "dangling" || current === "link-out") {
          makeForeign(out, "east", current === "foreign-dir" ? "dir" : current === "foreign-file" ? "file" : current, root);
          foreign.push("out/east");
        }

        let refused = foreign.length > 2;
        for (const { kind, n } of leftovers) {
          const name = kind.startsWith("link")
            ? ".east.link"
            : kind === "legacy-old"
              ? `.east.old-${n}-a`
              : kind === "partial-new"
                ? `.east.new-${n}-a`
                : `.east.${n}`;
          const path = join(out, name);
          if (lstatSync(path, { throwIfNoEntry: false })) continue;
          if (kind === "complete") writeDirectory(path, old);
          if (kind === "legacy-old") writeOlder(path, old);
          if (kind === "partial") {
            // A killed run's generation: the manifest first, then some of the files.
            mkdirSync(path);
            writeFileSync(join(path, MANIFEST), manifestText([...old.keys()]));
            writeFileSync(join(path, [...old.keys()][0]), "cut");
          }
          if (kind === "empty") mkdirSync(path);
          if (kind === "begun") {
            mkdirSync(path);
            writeFileSync(join(path, MANIFEST), "");
          }
          if (kind === "link-ours") symlinkSync(".east.1", path);
          if (kind === "foreign-dir" || kind === "foreign-file" || kind === "link-foreign" || kind === "link-file" || kind === "partial-new") {
            if (kind === "partial-new") {
              // An older rigging's staging directory, cut short: not recognisable as rigging's.
              mkdirSync(path);
              writeFileSync(join(path, "01-a.yaml"), "a: 1\n");
            } else makeForeign(out, name, kind === "foreign-dir" ? "dir" : kind === "link-foreign" ? "link-out" : "file", root);
            foreign.push(`out/${name}`);
            // What is in the way of the link rigging makes stops the write.
            if (kind.startsWith("link")) refused = true;
          }
        }

        const before = tree(root);
        const isForeign = (path: string) => !path.startsWith("out/") || foreign.some((f) => path === f || path.startsWith(`${f}/`));
        let error: unknown;
        const listing = fleetListing(out);
        try {
          // --force: an older rigging's output may differ from `next` and carry no checksum.
          if (readEarlier) writeFleetMember(out, "east", next, [], true, true);
          else writeFleetMember(out, "east", next, listing.leftovers.get("east") ?? [], !listing.names.has("east"), true);
        } catch (caught) {
          error = caught;
        }
        const after = tree(root);
        keptAll(before, after, isForeign);
        if (readEarlier) {
          // Read too early, the write may succeed where a fresh read would
          // refuse (a link in the way of the general path's own) and leave a
          // killed run's leftovers to the next run; it still never loses a
          // file, and writes all or nothing.
          if (error !== undefined) {
            expect(error).toBeInstanceOf(UsageError);
            expect(after).toEqual(before);
          } else expect(tree(east)).toEqual(Object.fromEntries([...next, [MANIFEST, manifestWith(next)]]));
          return;
        }
        if (refused) {
          expect(error).toBeInstanceOf(UsageError);
          expect(after).toEqual(before);
          return;
        }
        expect(error).toBeUndefined();
        const generation = readlinkSync(east);
        expect(generation).toMatch(/^\.east\.\d+$/);
        expect(tree(east)).toEqual(Object.fromEntries([...next, [MANIFEST, manifestWith(next)]]));
        // East's hidden entries left: its generation and what is not rigging's.
        for (const path of Object.keys(after).filter((p) => /^out\/\.east\.[^/]+$/.test(p) && p !== `out/${generation}`)) {
          expect(isForeign(path), `${path} is rigging's and was left`).toBe(true);
        }
      }),
      { numRuns: runs(300) },
    );
  });
});

describe("a fleet's paths, made by concatenation where path.join would only add a separator", () => {
  it("entryOf(out, name) and inside(join(out, name), file) are what path.join answers, for any OUT and name", async () => {
    const segment = fc.constantFrom("", ".", "..", "a", "out", "/", "//", "b/", "./", "../", "x y", ".a.1");
    const out = fc.array(segment, { maxLength: 5 }).map((parts) => parts.join(""));
    const name = fc.oneof(
      fc.constantFrom("a", "v0", ".v0.1", ".rigging-output", "manifests.yaml", ".", "..", "", "a/b", "/a", "a/"),
      fc.string({ maxLength: 6 }),
    );
    await fc.assert(
      loopProperty(fc.array(fc.tuple(out, name, name), { minLength: 1, maxLength: 4 }), (cases) => {
        // Several OUTs in a row: the kept prefix follows the OUT asked.
        for (const [dir, entry, file] of cases) {
          expect(entryOf(dir, entry)).toBe(join(dir, entry));
          expect(inside(join(dir, entry), file)).toBe(join(join(dir, entry), file));
        }
      }),
      { numRuns: runs(500) },
    );
  });
});
