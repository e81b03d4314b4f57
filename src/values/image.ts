// Image references (G-05): only `repository@sha256:<digest>` reaches a pod
// spec; a paired human tag is kept as an annotation.
import { z } from "zod";
import { once, req, tagged, transformBy, type IssueSink } from "./values.ts";

const COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const REGISTRY = "[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?";
const REPOSITORY = new RegExp(`^(?:${REGISTRY}/)?${COMPONENT}(?:/${COMPONENT})*$`);
/** distribution/reference's NameTotalLengthMax. */
const REPOSITORY_MAX = 255;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const PAIRED_TAG = /^main-[0-9]+-[0-9a-f]{12}$/;
const TAG = /^[\w][\w.-]{0,127}$/;

export interface ImageRef {
  repository: string;
  digest: string;
  /** The paired `main-<n>-<sha12>` tag, when one was given. */
  tag?: string;
}

/** The only form written into a pod spec. */
export function pinned(image: ImageRef): string {
  return `${image.repository}@${image.digest}`;
}

/** Parses a reference, or returns why it is not a digest-pinned one. */
export function parseImage(text: string): ImageRef | string {
  const at = text.indexOf("@");
  const name = at < 0 ? text : text.slice(0, at);
  const digest = at < 0 ? "" : text.slice(at + 1);
  const colon = name.lastIndexOf(":");
  const hasTag = colon > name.lastIndexOf("/");
  const repository = hasTag ? name.slice(0, colon) : name;
  const tag = hasTag ? name.slice(colon + 1) : undefined;
  // The registry's own bound on a name, checked first: the pattern's repeated groups take stack per component.
  if (repository.length > REPOSITORY_MAX) return `is not a valid image repository (longer than ${REPOSITORY_MAX} characters)`;
  if (!REPOSITORY.test(repository)) return "is not a valid image repository";
  if (tag === "latest") return "uses the `latest` tag";
  if (tag !== undefined && !TAG.test(tag)) return `has an invalid tag \`${tag}\``;
  if (at < 0) return tag === undefined ? "has no digest" : "is tag-only, with no digest";
  if (!digest.startsWith("sha256:")) return "has a digest that is not sha256";
  if (!DIGEST.test(digest)) return "has a digest that is not 64 lowercase hex characters";
  // Any tag may sit beside the digest for people (rigging pin writes the one it followed); one that
  // looks like the paired form but is not is a typo worth stopping (D8).
  if (tag?.startsWith("main-") && !PAIRED_TAG.test(tag)) return `has tag \`${tag}\`, which is not the paired main-<n>-<sha12> form`;
  return { repository, digest, tag };
}

const IMAGE_FIX =
  "use repository@sha256:<64 hex>, optionally with a tag beside the digest, such as the paired repository:main-<n>-<sha12>@sha256:<64 hex> (rigging pin writes it)";

/** The reference `text` names, or a G-05 issue in `ctx` (then the value is never used). */
export function imageOf(text: string, ctx: IssueSink): ImageRef {
  const parsed = parseImage(text);
  if (typeof parsed === "string") {
    ctx.addIssue({ code: "custom", input: text, message: tagged("G-05", parsed, IMAGE_FIX) });
    return z.NEVER;
  }
  return parsed;
}

/** The values schema of an image: a string in, an ImageRef out. */
export const imageSchema = once(() =>
  transformBy(z.string(req("G-05", "expected an image reference string", IMAGE_FIX)), imageOf).meta({
    description: "Image by digest: repository@sha256:<64 hex>, or repository:<tag>@sha256:<64 hex> (only the digest reaches the pod)",
  }),
);
