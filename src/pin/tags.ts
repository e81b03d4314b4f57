// A repository's tags, read anonymously (D9) page by page, bounded in size and pages.
import { z } from "zod";
import { printable } from "../core/printable.ts";
import type { PinReference } from "./reference.ts";
import { parseJson, RegistryError, type RegistryClient } from "./registry.ts";

/** Tags asked for per page (`?n=`); a registry may send fewer. */
export const TAGS_PER_PAGE = 1000;
/** One page's body; a tag is at most 128 characters. */
export const TAG_PAGE_BYTES = 1024 * 1024;
export const MAX_TAGS = 100_000;
export const MAX_TAG_PAGES = 200;

const pageSchema = z.object({ name: z.string().max(512).optional(), tags: z.array(z.string().max(128)).nullable().optional() });
/** `<url>; rel="next"`, the only relation the tag list's pagination uses. */
const NEXT = /<([^<>]{1,2048})>\s*;\s*rel="?next"?/;

/** Every tag of the repository `ref` names, in the registry's order. */
export async function listTags(client: RegistryClient, ref: PinReference): Promise<string[]> {
  const what = `the tags of ${ref.name}`;
  const tags: string[] = [];
  let path = `/v2/${ref.repository}/tags/list?n=${TAGS_PER_PAGE}`;
  for (let page = 1; ; page++) {
    if (page > MAX_TAG_PAGES) throw new RegistryError(`${ref.registry}: ${what} run to more than ${MAX_TAG_PAGES} pages`);
    const answer = await client.get(ref, path, "application/json", TAG_PAGE_BYTES, what);
    const body = pageSchema.safeParse(parseJson(answer.body, `${ref.registry}: ${what} are not a tag list (not JSON)`));
    if (!body.success) throw new RegistryError(`${ref.registry}: ${what} are not a tag list ({"name", "tags": [...]})`);
    for (const tag of body.data.tags ?? []) tags.push(tag);
    if (tags.length > MAX_TAGS) throw new RegistryError(`${ref.registry}: ${what} are more than ${MAX_TAGS}`);
    const link = answer.header("link");
    const next = link && link.length <= 4096 ? NEXT.exec(link)?.[1] : undefined;
    if (!next) return tags;
    path = samePlace(next, ref, path);
  }
}

/** The next page's path and query: on the registry's own origin, under the tag list's path. */
function samePlace(next: string, ref: PinReference, current: string): string {
  let url: URL;
  try {
    url = new URL(next, ref.apiBase + current);
  } catch {
    throw new RegistryError(`${ref.registry}: the tag list's next page is no URL`);
  }
  if (url.origin !== new URL(ref.apiBase).origin || url.pathname !== `/v2/${ref.repository}/tags/list`)
    throw new RegistryError(`${ref.registry}: the tag list's next page is elsewhere (${printable(url.href.slice(0, 200))})`);
  return url.pathname + url.search;
}
