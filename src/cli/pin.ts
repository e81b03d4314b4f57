// `rigging pin`: the Compass Server-on-Kubernetes design's image decisions against the registry: D8 tags
// pinned to digests in place, D9 read anonymously, D10 platforms checked.
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { readText } from "../parse/read.ts";
import { Deadline, describeError, exitCode, formatResults, resultsNote, parseFormat, parseTimeout, TimeoutError } from "../preflight/common.ts";
import { printable } from "../core/printable.ts";
import { withDigest } from "../pin/reference.ts";
import { platformResult, type PinResult } from "../pin/platforms.ts";
import { imagesOf, type ImageSite } from "../pin/sites.ts";
import { tagResult, tagToFollow } from "../pin/tag-policy.ts";
import { applyEdits, type Edit, writeInPlace } from "../pin/write.ts";
import type { Io } from "./io.ts";
import { label } from "./preflight-run.ts";

export const PIN_TIMEOUT_SECONDS = 30;

export const PIN_HELP = `Usage: rigging pin VALUES|-f VALUES [--check] [--format text|json] [--timeout SECS]
       rigging pin --update VALUES [--dry-run]
       rigging pin --outdated VALUES

Follow every image tag in VALUES to its digest in the registry and write it
beside the tag, in place: repo:tag becomes repo:tag@sha256:<digest> (D8),
the file's comments and layout kept. Images are found under every key named
image (nats.image among them). An image written by digest alone
(repo@sha256:...) has no tag to follow and is left as it is.

D8-D10 are decisions of the Compass Server-on-Kubernetes design (rigging
explain D8). Every image is checked on the way:
  D9   the registry is read anonymously: an image it will not show without
       credentials is not public, and rigging never asks for a password
  D10  the digest is an image index with linux/amd64 and linux/arm64 (the
       Server, NATS, the Rootpilot runner); the Runner needs linux/amd64
       only, until an arm64 KVM boot passes
Nothing is written unless every image passes.

A registry on a loopback address (127.0.0.0/8, localhost, [::1]) is read
over plain HTTP, as Docker does; every other one over HTTPS. A name with no
registry host is on Docker Hub.

Options:
      --check          change nothing; fail when a recorded digest is no longer
                       its tag's, an image is not pinned, or its platforms are
                       wrong (for CI)
  -f, --values FILE    the values file (the same as VALUES)
      --update         move every image tagged main-<n>-<sha12> to the newest
                       build: the highest n among the repository's paired
                       tags (listed anonymously), if its digest passes D10;
                       an image whose newest build fails D10 is not moved,
                       and the table names the newest build that passes
      --dry-run        with --update: print the table of what would move,
                       from which build to which; write nothing
      --outdated       print the same table, write nothing; exit 1 when an
                       image has a newer build that passes D10 (for CI)
      --format FMT     text (default) or json
      --timeout SECS   one deadline for all registry reads (default ${PIN_TIMEOUT_SECONDS})
  -h, --help           show this help

Exit codes: 0 every image pinned (or nothing to pin); 1 an image fails a
check (nothing written), or with --outdated an image can move; 2 usage error, or a registry that cannot be read
(unreachable, garbage, too large, redirect loop, silent past the deadline),
or VALUES changed while pin ran (the edit is kept, nothing written).
`;

export function pinCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      check: { type: "boolean", default: false },
      values: { type: "string", short: "f" },
      update: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
      outdated: { type: "boolean", default: false },
      format: { type: "string" },
      timeout: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return io.out(PIN_HELP), 0;
  const files = [...positionals, ...(values.values === undefined ? [] : [values.values])];
  if (files.length !== 1) throw new UsageError(`pin takes one values file, got ${files.length}; usage: rigging pin VALUES [--check]`);
  const file = files[0];
  if (file === "-") throw new UsageError("pin rewrites its values file in place: give a file, not -");
  const modes = [values.check && "--check", values.update && "--update", values.outdated && "--outdated"].filter(Boolean);
  if (modes.length > 1) throw new UsageError(`pin: ${modes.join(" and ")} exclude each other`);
  if (values["dry-run"] && !values.update) throw new UsageError("pin: --dry-run goes with --update (pin --update --dry-run VALUES)");
  const format = parseFormat(values.format);
  const timeout = parseTimeout(values.timeout, PIN_TIMEOUT_SECONDS);
  const text = readText(file);
  const { sites } = imagesOf(text, file);
  if (sites.length === 0) {
    io.err(`note: ${printable(file)} names no image to pin\n`);
    if (format === "json") io.out("[]\n");
    return 0;
  }
  if (values.update || values.outdated)
    return updateSites(sites, { file, text, mode: values.outdated ? "outdated" : values["dry-run"] ? "dry-run" : "write", format, timeout }, io);
  return pinSites(sites, { file, text, check: values.check, format, timeout }, io);
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
      const followed = tagToFollow(site);
      if ("result" in followed) {
        results.push(followed.result);
        continue;
      }
      const { ref, tag } = followed;
      try {
        const current = await client.manifest(ref, tag);
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
    throw asUsageError(error, RegistryError);
  } finally {
    client.close();
    deadline.end();
  }
  const safe = results.map((r) => ({ ...r, message: printable(r.message), ...(r.fix ? { fix: printable(r.fix) } : {}) }));
  io.out(formatResults(safe, run.format, (outcome) => label(outcome, io)));
  io.err(resultsNote(safe, run.format));
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

/** The registry's failures and the deadline as usage errors (exit 2); anything else as it is. */
function asUsageError(error: unknown, RegistryError: new (...args: never[]) => Error): unknown {
  if (error instanceof TimeoutError) return new UsageError(`cannot read the registry: ${describeError(error, (t) => t)}`);
  if (error instanceof RegistryError) return new UsageError(describeError(error, (t) => t));
  return error;
}

/** --update, --update --dry-run and --outdated: the table of builds, and the moves written (write) or judged (outdated). */
async function updateSites(
  sites: ImageSite[],
  run: { file: string; text: string; mode: "write" | "dry-run" | "outdated"; format: "text" | "json"; timeout: number },
  io: Io,
): Promise<number> {
  const { RegistryClient, RegistryError } = await import("../pin/registry.ts");
  const { formatRows, planUpdate } = await import("../pin/update.ts");
  const deadline = new Deadline(run.timeout);
  const client = new RegistryClient(deadline);
  const plans = [];
  try {
    for (const site of sites) plans.push({ site, ...(await planUpdate(site, client)) });
  } catch (error) {
    throw asUsageError(error, RegistryError);
  } finally {
    client.close();
    deadline.end();
  }
  io.out(
    formatRows(
      plans.map((p) => p.row),
      run.format,
    ),
  );
  const failed = plans.some((p) => p.row.state === "fail");
  const edits: Edit[] = plans.flatMap((p) => (p.value === undefined ? [] : [{ site: p.site, value: p.value }]));
  if (run.mode === "outdated") return failed || edits.length > 0 ? 1 : 0;
  if (failed) {
    io.err(`note: nothing written to ${printable(run.file)}: an image could not be followed\n`);
    return 1;
  }
  if (run.mode === "dry-run" || edits.length === 0) {
    io.err(`note: ${printable(run.file)} ${edits.length === 0 ? "has the newest builds that pass already" : "not written (--dry-run)"}\n`);
    return 0;
  }
  writeInPlace(run.file, run.text, applyEdits(run.text, edits, run.file));
  io.err(`moved ${edits.length} image(s) to a newer build in ${printable(run.file)}\n`);
  return 0;
}
