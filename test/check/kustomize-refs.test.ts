// The forms kustomize's remote loader reads as a URL or a git address are
// told apart from local paths, in time linear in the reference.
import { describe, expect, it } from "vitest";
import { remoteForm } from "../../src/check/kustomize-refs.ts";
import { expectLinear } from "../support/linear.ts";

describe("remoteForm", () => {
  it.each([
    ["https://example.com/x.yaml", "a URL"],
    ["HTTP://example.com/x.yaml", "a URL"],
    ["file:///etc", "a URL"],
    ["ssh://git@example.com/org/repo", "a URL"],
    ["git::https://example.com/org/repo", "a URL"],
    ["gh:org/repo", "a URL (a scheme or host prefix)"],
    ["github.com:org/repo", "a URL (a scheme or host prefix)"],
    ["git@github.com:org/repo.git", "a git address (user@host:path)"],
    ["GitHub.com/org/repo/base", "a git repository address"],
    ["org/_git/repo", "a git repository address"],
    ["base?ref=--upload-pack=sh", "a URL with a query"],
  ])("%s is %s", (value, form) => expect(remoteForm(value)).toBe(form));

  it.each(["../base", "./deployment.yaml", "overlays/prod", "a@b/c:d", "name.with.dots/x"])("%s is a local path", (value) =>
    expect(remoteForm(value)).toBeUndefined());

  it.each(["@", "a@", "a:", "github.co"])("runs of %j are judged in linear time", (unit) => {
    expectLinear(
      [1, 2, 4, 8].map((n) => n * 256 * 1024),
      (size) => () => void remoteForm(`${unit.repeat(size / unit.length)}/x`),
    );
  });
});
