// D8 for one image: a tag to follow to its digest (never latest, which moves
// with every push), and what the digest the registry gives says of the file.
import { printable } from "../core/printable.ts";
import type { PinResult } from "./platforms.ts";
import { parseReference, type PinReference } from "./reference.ts";
import type { Manifest } from "./registry.ts";
import type { ImageSite } from "./sites.ts";

/** The reference and the tag pin follows, or the result that says why there is no tag to follow. */
export function tagToFollow(site: ImageSite): { ref: PinReference; tag: string } | { result: PinResult } {
  const ref = parseReference(site.text);
  if (typeof ref === "string")
    return {
      result: {
        id: "D8",
        check: site.path,
        outcome: "fail",
        message: `the image ${ref.includes("credentials") ? "" : `${printable(site.text.slice(0, 200))} `}${ref}`,
        fix: "write the image as registry/repository:tag",
      },
    };
  const shown = printable(ref.text);
  if (ref.tag === undefined)
    return {
      result: ref.digest
        ? { id: "D8", check: site.path, outcome: "note", message: `${shown} is written by digest alone: no tag to follow, left as it is`, image: ref.text }
        : {
            id: "D8",
            check: site.path,
            outcome: "fail",
            message: `${shown} names no tag: nothing to follow`,
            fix: "name the tag to pin, such as the paired main-<n>-<sha12> tag (G-05: no latest)",
            image: ref.text,
          },
    };
  if (ref.tag === "latest")
    return {
      result: {
        id: "D8",
        check: site.path,
        outcome: "fail",
        message: `${shown} names the latest tag, which moves with every push`,
        fix: "name the paired main-<n>-<sha12> tag (D8) or a release tag (G-05: no latest)",
        image: ref.text,
      },
    };
  return { ref, tag: ref.tag };
}

/** The tag against the digest it names now: pinned (or pinned already), or, under --check, not pinned or moved. */
export function tagResult(site: ImageSite, ref: PinReference, current: Manifest, check: boolean): PinResult {
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
