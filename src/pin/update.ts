// `rigging pin --update`: the newest paired-tag build of each image (D8), left
// in place when it fails D10, with the newest build that would pass named.
import { printable } from "../core/printable.ts";
import { platformResult } from "./platforms.ts";
import { parseReference, withDigest, type PinReference } from "./reference.ts";
import { ImageProblem, type RegistryClient } from "./registry.ts";
import type { ImageSite } from "./sites.ts";
import { listTags } from "./tags.ts";

export type UpdateState = "move" | "newest" | "held" | "kept" | "fail";

/** One image's line of the table: from which build to which, and why. */
export interface UpdateRow {
  check: string;
  image: string;
  state: UpdateState;
  /** The tag written now. */
  from?: string;
  /** The newest build's tag (move), or the newest one that passes D10 (held). */
  to?: string;
  digest?: string;
  /** The design decision of a failure, or of a build held back. */
  id?: "D8" | "D9" | "D10";
  message: string;
  fix?: string;
}

export interface UpdatePlan {
  row: UpdateRow;
  /** The new text of the image, when it moves. */
  value?: string;
}

export const PAIRED_TAG = /^main-(\d{1,15})-([0-9a-f]{12})$/;
/** Newer builds read, newest first, for one that passes D10, before giving up. */
export const MAX_BUILDS_TRIED = 10;

interface Build {
  tag: string;
  n: number;
}

/** The row and new value of one image; a registry that cannot be read throws (exit 2). */
export async function planUpdate(site: ImageSite, client: RegistryClient): Promise<UpdatePlan> {
  const ref = parseReference(site.text);
  if (typeof ref === "string")
    return { row: { check: site.path, image: "", state: "fail", id: "D8", message: `the image ${ref}`, fix: "write the image as registry/repository:tag" } };
  const base = { check: site.path, image: ref.text, from: ref.tag };
  const current = ref.tag === undefined ? undefined : PAIRED_TAG.exec(ref.tag);
  if (!current) return { row: { ...base, state: "kept", message: "not a paired main-<n>-<sha12> tag: no build order to follow, left as it is" } };
  try {
    const newer = newerBuilds(await listTags(client, ref), Number(current[1]));
    if (newer.length === 0) return { row: { ...base, state: "newest", message: `${ref.tag} is the newest build in the registry` } };
    return await newestPassing(site, ref, newer, client);
  } catch (error) {
    if (!(error instanceof ImageProblem)) throw error;
    return { row: { ...base, state: "fail", id: error.id, message: error.message, fix: error.fix } };
  }
}

/** Builds numbered above `n`, newest first (the tag breaks a tie, so the order never depends on the registry's). */
function newerBuilds(tags: string[], n: number): Build[] {
  const builds: Build[] = [];
  for (const tag of tags) {
    const paired = PAIRED_TAG.exec(tag);
    if (paired && Number(paired[1]) > n) builds.push({ tag, n: Number(paired[1]) });
  }
  return builds.sort((a, b) => b.n - a.n || (a.tag < b.tag ? 1 : a.tag > b.tag ? -1 : 0));
}

async function newestPassing(site: ImageSite, ref: PinReference, newer: Build[], client: RegistryClient): Promise<UpdatePlan> {
  const base = { check: site.path, image: ref.text, from: ref.tag };
  const newest = newer[0];
  let refusal = "";
  const tried = newer.slice(0, MAX_BUILDS_TRIED);
  for (const [i, build] of tried.entries()) {
    const manifest = await client.manifest(ref, build.tag).catch((error: unknown) => {
      if (error instanceof ImageProblem && error.id === "D8")
        throw new ImageProblem(
          "D8",
          `${printable(ref.name)}:${build.tag} was in the registry's tag list and is not in the registry now (deleted since): nothing moved`,
          "run pin --update again once the registry's tags settle",
        );
      throw error;
    });
    const judged = platformResult(site, ref, manifest);
    if (judged.outcome === "pass" && i === 0)
      return {
        row: { ...base, state: "move", to: build.tag, digest: manifest.digest, message: judged.message },
        value: withDigest({ ...ref, tag: build.tag }, manifest.digest),
      };
    if (judged.outcome === "pass")
      return {
        row: {
          ...base,
          state: "held",
          to: build.tag,
          digest: manifest.digest,
          id: "D10",
          message: `the newest build, ${newest.tag}, is not moved to: ${refusal}; the newest build that passes is ${build.tag}`,
          fix: `publish a build that passes D10, or write ${build.tag} by hand`,
        },
      };
    if (i === 0) refusal = judged.message;
  }
  const none = newer.length > tried.length ? `none of the ${tried.length} newest builds passes` : `none of the ${tried.length} newer build(s) passes`;
  return {
    row: {
      ...base,
      state: "held",
      id: "D10",
      message: `the newest build, ${newest.tag}, is not moved to: ${refusal}; ${none}, so ${ref.tag} stays`,
      fix: "publish a build that passes D10",
    },
  };
}

export const STATE_WORDS: Record<UpdateState, string> = { move: "move", newest: "newest", held: "held", kept: "kept", fail: "FAIL" };

/** What each state means, for docs/pin.md's table (src/docs/generate.ts writes it). */
export const STATE_MEANINGS: Record<UpdateState, string> = {
  move: "a newer build passes D10: `--update` writes it",
  newest: "the file names the newest build already",
  held: "the newest build fails D10: not moved; `to` in JSON names the newest build that passes, if one does",
  kept: "not a paired tag: no build order to follow",
  fail: "the image cannot be followed (D8, D9): nothing is written",
};

/** The table: one line per image, its columns aligned, the reason last. */
export function formatRows(rows: readonly UpdateRow[], format: "text" | "json"): string {
  if (format === "json") return `${JSON.stringify(rows, null, 2)}\n`;
  const cells = rows.map((r) => [
    STATE_WORDS[r.state],
    printable(r.check),
    printable(r.from ?? "-"),
    r.state === "move" ? printable(r.to!) : "-",
    `${r.id ? `${r.id} ` : ""}${printable(r.message)}${r.fix ? ` (fix: ${printable(r.fix)})` : ""}`,
  ]);
  const header = ["state", "image", "from", "to", "why"];
  const widths = header.slice(0, 4).map((h, c) => Math.max(h.length, ...cells.map((row) => row[c].length)));
  const line = (row: string[]) => `${row.map((cell, c) => (c < 4 ? cell.padEnd(widths[c]) : cell)).join("  ")}\n`;
  return [header, ...cells].map(line).join("");
}
