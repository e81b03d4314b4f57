// Every command's time grows linearly with its input, from 1 to 8 MiB (the
// size limit of one input file, docs/limits.md): render of one values
// file, a fleet, check, fn, pin's reading and rewriting of a values file,
// and preflight's reading of a server's answers. Each runs in-process at
// 1 MiB and at 8 MiB, and its least CPU time at 8 MiB is compared with the
// linear fit from 1 MiB (test/support/linear.ts), never with an absolute
// time: a quadratic step takes some eight times the fit. Each input keeps within every other limit too: under
// 500,000 nodes in one document, and an object's parts within what the
// API server takes where a render writes them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fnAnswer } from "../../src/cli/fn.ts";
import { imagesOf } from "../../src/pin/sites.ts";
import { applyEdits } from "../../src/pin/write.ts";
import { LIMITS } from "../../src/parse/limits.ts";
import { redactor } from "../../src/preflight/common.ts";
import { AnswerGuard } from "../../src/preflight/postgres-wire.ts";
import { ROOT, runInProcess } from "../support/cli.ts";
import { pgMessage } from "../support/fake-wire.ts";
import { expectLinearBreathing } from "../support/linear.ts";

const MiB = 1024 * 1024;
/** Input sizes: 1 and 8 MiB, each a little under, so that the largest is within the 8 MiB limit. */
const SIZES = [1, 8].map((n) => n * MiB - 4096);
const TIMEOUT = 600_000;

const SERVER = readFileSync(join(ROOT, "examples", "compass-server.yaml"), "utf8");
const RUNNER = readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8");
const RUNNER_SET = readFileSync(join(ROOT, "test", "fixtures", "check", "compass-runner", "valid.yaml"), "utf8");

let root: string;
beforeAll(() => void (root = mkdtempSync(join(tmpdir(), "rigging-linear-"))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const pad = (i: number) => String(i).padStart(7, "0");

/** Lines `line(i)` for i = 0, 1, ... after `head`, as many as fit in `bytes`. */
function grown(head: string, bytes: number, line: (i: number) => string): string {
  const parts = [head];
  let total = head.length;
  for (let i = 0; ; i++) {
    const next = line(i);
    if (total + next.length > bytes) break;
    parts.push(next);
    total += next.length;
  }
  return parts.join("");
}

/** Compass Server values whose node selection holds as many labels as fit: two scalars in some 80 bytes. */
const serverValues = (bytes: number) =>
  grown(`${SERVER}nodeSelector:\n`, bytes, (i) => `  nodes.example.com/rack-${pad(i)}: row-${pad(i)}-of-the-east-hall-aisle-4\n`);

/** The number of `key: value` lines of `text` under its top-level `key:`. */
const entriesUnder = (text: string, key: string) => text.slice(text.indexOf(`\n${key}:\n`)).split("\n  ").length - 1;

function fileOf(name: string, text: string): string {
  const file = join(root, name);
  writeFileSync(file, text);
  return file;
}

describe("time against a linear fit, from 1 to 8 MiB, command by command", () => {
  it("the sizes stay within the input limit", () => {
    expect(Math.max(...SIZES)).toBeLessThanOrEqual(LIMITS.fileBytes);
    expect(serverValues(SIZES[1]).length).toBeLessThanOrEqual(SIZES[1]);
  });

  it(
    "render of one values file: labels in the node selection, each rendered into two pod specs",
    async () => {
      await expectLinearBreathing(SIZES, (size) => {
        const text = serverValues(size);
        const file = fileOf(`server-${size}.yaml`, text);
        const last = `nodes.example.com/rack-${pad(entriesUnder(text, "nodeSelector") - 1)}`;
        return () => {
          const result = runInProcess(["render", file]);
          expect(result.code, result.err.slice(0, 500)).toBe(0);
          expect(result.out).toContain(last);
        };
      });
    },
    TIMEOUT,
  );

  it(
    "render of a fleet: 16 and 128 values files of 64 KiB",
    async () => {
      const member = serverValues(64 * 1024);
      await expectLinearBreathing(SIZES, (size) => {
        const input = mkdtempSync(join(root, "fleet-"));
        const count = Math.round(size / member.length);
        for (let i = 0; i < count; i++) writeFileSync(join(input, `east-${pad(i)}.yaml`), member);
        return () => {
          const result = runInProcess(["render", input, "-o", mkdtempSync(join(root, "out-"))]);
          expect(result.code, result.err.slice(0, 500)).toBe(0);
          expect(result.err).toContain(`rendered ${count} of ${count} values files`);
        };
      });
    },
    TIMEOUT,
  );

  it(
    "check: a Runner installation and as many ConfigMaps of it (of 1 KiB) as fit",
    async () => {
      const CACHE_CONF = ["size = 10G", "eviction = lru", "shards = 16", "compress = zstd", "checksum = crc32c"]
        .map((line) => `    ${line.padEnd(120, " ")}# tuned for the east hall\n`)
        .join("");
      const configMap = (i: number) =>
        `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: runner-cache-${pad(i)}\n  namespace: ci-microvms\n  labels:\n    app.kubernetes.io/name: compass-runner\n    app.kubernetes.io/instance: kvm-runner\n    app.kubernetes.io/part-of: compass\ndata:\n  cache.conf: |\n${CACHE_CONF}    dir = /var/cache/compass/${pad(i)}\n`;
      await expectLinearBreathing(SIZES, (size) => {
        const text = grown(`${RUNNER_SET}\n`, size, configMap);
        const objects = text.split("\n---\n").length;
        const file = fileOf(`set-${size}.yaml`, text);
        return () => {
          const result = runInProcess(["check", file]);
          expect(result.code, result.out.slice(0, 500)).toBe(0);
          expect(result.err).toContain(`in ${objects} object(s) of 1 file(s)`);
        };
      });
    },
    TIMEOUT,
  );

  it(
    "fn: a ResourceList of the package's own items (of 1 KiB), with Runner values as its functionConfig",
    async () => {
      const NOTES = Array.from(
        { length: 6 },
        (_, n) => `      ${`note ${n}: the maintenance window of this team, agreed with the platform team`.padEnd(110, ".")}\n`,
      ).join("");
      const config = ["apiVersion: rigging.dev/v1alpha1", "metadata:", "  name: runner", ...RUNNER.split("\n")].map((line) => `  ${line}`).join("\n");
      const item = (i: number) =>
        `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: team-settings-${pad(i)}\n    namespace: ci-microvms\n    annotations:\n      config.kubernetes.io/path: settings/${pad(i)}.yaml\n  data:\n    owner: platform-team-${pad(i)}\n    window: "02:00-04:00"\n    notes: |\n${NOTES}`;
      await expectLinearBreathing(SIZES, (size) => {
        const text = grown(`apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n${config}\nitems:\n`, size, item);
        const last = `team-settings-${pad(text.split("\n- ").length - 2)}`;
        return () => {
          let out = "";
          const code = fnAnswer(() => text, { out: (t) => void (out += t), err: () => {}, color: false });
          expect(code, out.slice(-500)).toBe(0);
          expect(out).toContain(`name: ${last}\n`);
        };
      });
    },
    TIMEOUT,
  );

  it(
    "pin: finding the images of a values file and writing a digest into it, its keys in one mapping",
    async () => {
      const image = "127.0.0.1:1/rigelbuild/compass-runner:main-1842-3f9c2a7d1b6e";
      const pinned = `${image}@sha256:${"a".repeat(64)}`;
      const head = `kind: CompassRunner\nimage: ${image}\nextra:\n`;
      await expectLinearBreathing(SIZES, (size) => {
        const text = grown(head, size, (i) => `  key${pad(i)}: ${`a value of the key ${pad(i)}, as long as a short note`.padEnd(100, ".")}\n`);
        return () => {
          const { sites } = imagesOf(text, "values.yaml");
          expect(applyEdits(text, [{ site: sites[0], value: pinned }], "values.yaml")).toContain(`image: ${pinned}\n`);
        };
      });
    },
    TIMEOUT,
  );

  it(
    "preflight: a PostgreSQL server's answers, framed by the guard in reads of every size, and its words redacted",
    async () => {
      const password = "s3cr3t-pa55";
      const notice = (i: number) =>
        pgMessage(
          "N",
          Buffer.from(`SNOTICE\0C00000\0Mrow ${pad(i)} of a long notice, which quotes ${password} now and then ${"x".repeat(3000)}\0\0`, "latin1"),
        );
      const redact = redactor([password]);
      await expectLinearBreathing(
        SIZES,
        (size) => {
          const messages: Buffer[] = [];
          let total = 0;
          for (let i = 0; total < size - 4096; i++) {
            messages.push(notice(i));
            total += messages[i].length;
          }
          const answer = Buffer.concat(messages);
          return () => {
            // Reads of every size a socket may hand over, down to a byte at a time for the first messages.
            for (const read of [1, 1024, 16 * 1024, 64 * 1024]) {
              const guard = new AnswerGuard();
              const bytes = read === 1 ? answer.subarray(0, 64 * 1024) : answer;
              let problem: string | undefined;
              for (let at = 0; at < bytes.length && problem === undefined; at += read) problem = guard.check(bytes.subarray(at, at + read));
              expect(problem).toBeUndefined();
            }
            expect(redact(answer.toString("latin1"))).not.toContain(password);
          };
        },
        3,
      );
    },
    TIMEOUT,
  );
});
