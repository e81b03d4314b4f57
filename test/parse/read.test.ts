// readText: each file's own bytes through one reused buffer, the size limit, and directories, missing and binary files refused with today's messages.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.ts";
import { readText } from "../../src/parse/read.ts";
import { LIMITS } from "../../src/parse/limits.ts";

describe("reading files into one reused buffer", () => {
  const dir = mkdtempSync(join(tmpdir(), "rigging-read-"));
  const write = (name: string, content: string | Buffer) => {
    const file = join(dir, name);
    writeFileSync(file, content);
    return file;
  };

  it("reads each file's own bytes, small after large, across the buffer's growth", () => {
    // Two- and three-byte characters at every offset, past 256 KiB and 1 MiB.
    const large = 'a: "é€😀"\n'.repeat(90_000);
    expect(Buffer.byteLength(large)).toBeGreaterThan(1024 * 1024);
    const small = "b: 1\n";
    for (const text of [small, large, small, "", large.slice(0, 262_144), small]) expect(readText(write("f.yaml", text))).toBe(text);
  });

  it("reads a file of exactly the limit, and refuses one byte more by its size", () => {
    const at = write("at.yaml", Buffer.alloc(LIMITS.fileBytes, "a"));
    expect(readText(at).length).toBe(LIMITS.fileBytes);
    const over = write("over.yaml", Buffer.alloc(LIMITS.fileBytes + 1, "a"));
    expect(() => readText(over)).toThrow(
      new UsageError(`${over}: ${LIMITS.fileBytes + 1} bytes is over the 8 MiB (${LIMITS.fileBytes}-byte) limit for an input file`),
    );
  });

  it("refuses a directory, a missing file and a binary file with today's messages", () => {
    const sub = join(dir, "sub.yaml");
    mkdirSync(sub);
    expect(() => readText(sub)).toThrow(new UsageError(`${sub}: is a directory, expected a file`));
    expect(() => readText(join(dir, "missing.yaml"))).toThrow(new UsageError(`${join(dir, "missing.yaml")}: cannot read: no such file`));
    expect(() => readText(join(dir, "missing", "x.yaml"))).toThrow(new UsageError(`${join(dir, "missing", "x.yaml")}: cannot read: no such file`));
    const binary = write("bin.yaml", Buffer.from([0x61, 0, 0x62]));
    expect(() => readText(binary)).toThrow(new UsageError(`${binary}: is a binary file, expected YAML or JSON text`));
  });
});
