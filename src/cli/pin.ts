// `rigging pin VALUES` and `rigging pin --check VALUES`: seed 001's image
// decisions against the registry. D8: a tag is followed to the digest of
// what it names, and only `repo:tag@sha256:...` is written (in place, the
// file's comments and layout kept). D9: the registry is read anonymously.
// D10: the digest holds the platforms the image's system runs on.
import { randomBytes } from "node:crypto";
import { chmodSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { parseDocument, Scalar } from "yaml";
import { InternalError, UsageError } from "../core/errors.ts";
import { parseValuesFile, readText } from "../core/source.ts";
import { closest } from "../core/values.ts";
import { KINDS, profileOf } from "../profiles/index.ts";
import { Deadline, describeError, exitCode, formatResults, parseFormat, parseTimeout, printable, TimeoutError, type CheckResult } from "../preflight/common.ts";
import { parseReference, withDigest, type PinReference } from "../pin/reference.ts";
import type { Manifest } from "../pin/registry.ts";
import { imageSites, REQUIRED_PLATFORMS, ROLE_NAMES, type ImageSite } from "../pin/sites.ts";
import type { Io } from "./io.ts";
import { label } from "./preflight-run.ts";

export const PIN_TIMEOUT_SECONDS = 30;

export const PIN_HELP = `Usage: rigging pin VALUES [--check] [--format text|json] [--timeout SECS]

Follow every image tag in VALUES to its digest in the registry and write it
beside the tag, in place: repo:tag becomes repo:tag@sha256:<digest> (seed
001, D8), the file's comments and layout kept. Images are found under every
key named image (nats.image among them). An image written by digest alone
(repo@sha256:...) has no tag to follow and is left as it is.

Every image is checked on the way:
  D9   the registry is read anonymously: an image it will not show without
       credentials is not public, and rigging never asks for a password
  D10  the digest is an image index with linux/amd64 and linux/arm64 (the
       Server, NATS, the Rootpilot runner); the Runner needs linux/amd64
       only, until an arm64 KVM boot passes (DL-577)
Nothing is written unless every image passes.

A registry on a loopback address (127.0.0.0/8, localhost, [::1]) is read
over plain HTTP, as Docker does; every other one over HTTPS. A name with no
registry host is on Docker Hub.

Options:
      --check          change nothing; fail when a recorded digest is no longer
                       its tag's, an image is not pinned, or its platforms are
                       wrong (for CI)
  -f, --format FMT     text (default) or json
      --timeout SECS   one deadline for all registry reads (default ${PIN_TIMEOUT_SECONDS})
  -h, --help           show this help

Exit codes: 0 every image pinned (or nothing to pin); 1 an image fails a
check (nothing written); 2 usage error, or a registry that cannot be read
(unreachable, garbage, too large, redirect loop, silent past the deadline),
or VALUES changed while pin ran (the edit is kept, nothing written).
`;

/** The `yaml` package's options for the values' places; its own duplicate-key check is quadratic. */
const PLACES = { uniqueKeys: false, strict: true, prettyErrors: false } as const;

export interface PinResult extends CheckResult {
  /** The image as written in VALUES. */
  image?: string;
  /** The digest its tag names now. */
  digest?: string;
}

export interface Edit {
  site: ImageSite;
  value: string;
}

export function pinCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      check: { type: "boolean", default: false },
      format: { type: "string", short: "f" },
      timeout: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return io.out(PIN_HELP), 0;
  if (positionals.length !== 1) throw new UsageError(`pin takes one values file, got ${positionals.length}; usage: rigging pin VALUES [--check]`);
  const file = positionals[0];
  if (file === "-") throw new UsageError("pin rewrites its values file in place: give a file, not -");
  const format = parseFormat(values.format);
  const timeout = parseTimeout(values.timeout, PIN_TIMEOUT_SECONDS);
  const text = readText(file);
  const { sites } = imagesOf(text, file);
  if (sites.length === 0) {
    io.err(`note: ${printable(file)} names no image to pin\n`);
    if (format === "json") io.out("[]\n");
    return 0;
  }
  return pinSites(sites, { file, text, check: values.check, format, timeout }, io);
}

/** The images a values file names, where they stand in its text (its kind refused when not a values kind). */
export function imagesOf(text: string, file: string): { kind: string; sites: ImageSite[] } {
  const source = parseValuesFile(text, file);
  const kind = (source.data as Record<string, unknown>).kind;
  if (typeof kind !== "string" || !profileOf(kind)) {
    const near = typeof kind === "string" ? closest(kind, KINDS) : undefined;
    throw new UsageError(
      `${file}: ${kind === undefined ? "no top-level kind" : `kind ${JSON.stringify(printable(String(kind)))} is not a values kind`}; expected one of ${KINDS.join(", ")}${near ? ` (did you mean ${near}?)` : ""}`,
    );
  }
  // The checks above bound size, depth and aliases and refused duplicate keys
  // (in linear time, unlike the package's own check); this parse keeps each value's place.
  const doc = parseDocument(text, PLACES);
  return { kind, sites: imageSites(doc, kind) };
}

async function pinSites(
  sites: ImageSite[],
  run: { file: string; text: string; check: boolean; format: "text" | "json"; timeout: number },
  io: Io,
): Promise<number> {
  // Loaded here, with the HTTP and TLS code it needs, so that no other command pays for it.
  const { ImageProblem, RegistryClient, RegistryError } = await import("../pin/registry.ts");
  const deadline = new Deadline(run.timeout);
  const client = new RegistryClient(deadline);
  const results: PinResult[] = [];
  const edits: Edit[] = [];
  try {
    for (const site of sites) {
      const ref = parseReference(site.text);
      const shown = typeof ref === "string" ? undefined : printable(ref.text);
      if (typeof ref === "string") {
        results.push({
          id: "D8",
          check: site.path,
          outcome: "fail",
          message: `the image ${ref.includes("credentials") ? "" : `${printable(site.text.slice(0, 200))} `}${ref}`,
          fix: "write the image as registry/repository:tag",
        });
        continue;
      }
      if (ref.tag === undefined) {
        results.push(
          ref.digest
            ? { id: "D8", check: site.path, outcome: "note", message: `${shown} is written by digest alone: no tag to follow, left as it is`, image: ref.text }
            : {
                id: "D8",
                check: site.path,
                outcome: "fail",
                message: `${shown} names no tag: nothing to follow`,
                fix: "name the tag to pin, such as the paired main-<n>-<sha12> tag (G-05: no latest)",
                image: ref.text,
              },
        );
        continue;
      }
      if (ref.tag === "latest") {
        results.push({
          id: "D8",
          check: site.path,
          outcome: "fail",
          message: `${shown} names the latest tag, which moves with every push`,
          fix: "name the paired main-<n>-<sha12> tag (D8) or a release tag (G-05: no latest)",
          image: ref.text,
        });
        continue;
      }
      try {
        const current = await client.manifest(ref, ref.tag);
        // --check judges what is deployed: the recorded digest's manifest.
        const judged = run.check && ref.digest && ref.digest !== current.digest ? await client.manifest(ref, ref.digest) : current;
        results.push(tagResult(site, ref, current, run.check), platformResult(site, ref, judged));
        if (!run.check) edits.push({ site, value: withDigest(ref, current.digest) });
      } catch (error) {
        if (!(error instanceof ImageProblem)) throw error;
        results.push({ id: error.id, check: site.path, outcome: "fail", message: error.message, fix: error.fix, image: ref.text });
      }
    }
  } catch (error) {
    if (error instanceof TimeoutError) throw new UsageError(`cannot read the registry: ${describeError(error, (t) => t)}`);
    if (error instanceof RegistryError) throw new UsageError(describeError(error, (t) => t));
    throw error;
  } finally {
    client.close();
    deadline.end();
  }
  const safe = results.map((r) => ({ ...r, message: printable(r.message), ...(r.fix ? { fix: printable(r.fix) } : {}) }));
  io.out(formatResults(safe, run.format, (outcome) => label(outcome, io)));
  const code = exitCode(safe);
  if (run.check) return code;
  if (code !== 0) {
    io.err(`note: nothing written to ${printable(run.file)}: an image failed a check\n`);
    return code;
  }
  const rewritten = applyEdits(run.text, edits, run.file);
  if (rewritten === run.text) io.err(`note: ${printable(run.file)} is pinned already: nothing to change\n`);
  else {
    writeInPlace(run.file, run.text, rewritten);
    const changed = edits.filter((e) => e.value !== e.site.text).length;
    io.err(`pinned ${changed} image(s) in ${printable(run.file)}\n`);
  }
  return 0;
}

function tagResult(site: ImageSite, ref: PinReference, current: Manifest, check: boolean): PinResult {
  const shown = `${printable(ref.name)}:${printable(ref.tag!)}`;
  const base = { id: "D8", check: site.path, image: ref.text, digest: current.digest };
  if (check) {
    if (!ref.digest)
      return {
        ...base,
        outcome: "fail",
        message: `${shown} is not pinned: no digest beside the tag (the tag names ${current.digest})`,
        fix: "run rigging pin on the file and commit the change",
      };
    if (ref.digest !== current.digest)
      return {
        ...base,
        outcome: "fail",
        message: `${shown} has moved: the tag names ${current.digest}, the file records ${ref.digest}`,
        fix: "run rigging pin on the file, review the new image and commit the change",
      };
    return { ...base, outcome: "pass", message: `${shown}@${current.digest} is the tag's digest, read anonymously` };
  }
  if (ref.digest === current.digest) return { ...base, outcome: "pass", message: `${shown} is pinned to ${current.digest} already, read anonymously` };
  return { ...base, outcome: "pass", message: `${shown} pinned to ${current.digest}${ref.digest ? `, was ${ref.digest}` : ""}, read anonymously` };
}

function platformResult(site: ImageSite, ref: PinReference, manifest: Manifest): PinResult {
  const need = REQUIRED_PLATFORMS[site.role];
  const who = ROLE_NAMES[site.role];
  const shown = `${printable(ref.name)}@${manifest.digest}`;
  const held = manifest.platforms.length > 0 ? manifest.platforms.map(printable).join(", ") : "no platform";
  const base = { id: "D10", check: site.path, image: ref.text, digest: manifest.digest };
  const missing = need.platforms.filter((p) => !manifest.platforms.includes(p));
  const wanted = need.platforms.join(" and ");
  const why =
    site.role === "runner" ? "the Runner runs on amd64 nodes only, until an arm64 KVM boot passes (DL-577)" : `${who} runs on amd64 and arm64 nodes (D10)`;
  if (need.index && manifest.kind !== "index") {
    return {
      ...base,
      outcome: "fail",
      message: `${shown} is a single-platform image (${held}), not an image index: ${why}`,
      fix: `publish ${who}'s image as an index with ${wanted} (docker buildx build --platform ${need.platforms.join(",")} --push)`,
    };
  }
  if (missing.length > 0) {
    return {
      ...base,
      outcome: "fail",
      message: `${shown} lacks ${missing.join(" and ")} (it holds ${held}): ${why}`,
      fix: `publish ${who}'s image with ${wanted}`,
    };
  }
  return { ...base, outcome: "pass", message: `${shown} is ${manifest.kind === "index" ? "an image index" : "an image"} with ${wanted}: ${why}` };
}

/**
 * The text with each image's scalar replaced where it stands, quoted as it
 * was; everything else, comments included, is the file's own bytes. The
 * result is parsed again to prove that each image reads as written.
 */
export function applyEdits(text: string, edits: Edit[], file: string): string {
  let out = text;
  const ordered = [...edits].filter((e) => e.value !== e.site.text).sort((a, b) => b.site.node.range![0] - a.site.node.range![0]);
  for (const { site, value } of ordered) {
    const [start, end] = site.node.range!;
    const quoted =
      site.node.type === Scalar.QUOTE_DOUBLE
        ? `"${value}"`
        : site.node.type === Scalar.QUOTE_SINGLE
          ? `'${value}'`
          : site.node.type === Scalar.PLAIN
            ? value
            : undefined;
    if (quoted === undefined) throw new UsageError(`${printable(file)}: ${site.path} is a block scalar; write the image on one line to pin it`);
    out = out.slice(0, start) + quoted + out.slice(end);
  }
  const again = parseDocument(out, PLACES);
  for (const { site, value } of edits) {
    if (again.errors.length > 0 || again.getIn(site.keys) !== value) {
      throw new InternalError(`pin would not write ${site.path} as ${value} (a bug in rigging; nothing was written)`);
    }
  }
  return out;
}

/**
 * Replaces the file at once (a new file renamed over it), keeping its mode;
 * a symlink's target is replaced. The file is read again just before the
 * rename, and an edit made since `read` was read is kept: nothing is written.
 */
export function writeInPlace(file: string, read: string, text: string): void {
  let target: string;
  let temp: string | undefined;
  try {
    target = realpathSync(file);
    const mode = statSync(target).mode & 0o7777;
    temp = join(dirname(target), `.${basename(target)}.rigging-pin-${randomBytes(4).toString("hex")}`);
    writeFileSync(temp, text, { flag: "wx", mode });
    chmodSync(temp, mode);
    if (readNow(target) !== read) {
      rmSync(temp, { force: true });
      temp = undefined;
      throw new ChangedMeanwhile();
    }
    renameSync(temp, target);
  } catch (error) {
    if (temp) rmSync(temp, { force: true });
    if (error instanceof ChangedMeanwhile)
      throw new UsageError(`${printable(file)} changed while pin read the registry: nothing written, the file is as it is now; run pin again`);
    throw new UsageError(`${printable(file)}: cannot write: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

class ChangedMeanwhile extends Error {}

/** The file's text as `readText` gives it, or undefined when it is gone or unreadable now. */
function readNow(file: string): string | undefined {
  try {
    return readText(file);
  } catch {
    return undefined;
  }
}
