// CR-10: the shipped Compass Runner seccomp profile is the upstream
// runner-manifests profile (measured to boot, not minimized): its
// unconditional allow-list, `socket` filtered by address family and
// `personality` by persona, restricted to x86_64. The facts come from
// test/fixtures/compass-interfaces.md §4, read here independently.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../support/cli.ts";

interface Entry {
  names: string[];
  action: string;
  args?: { index: number; value: number; op: string }[];
}
const profile = JSON.parse(readFileSync(join(ROOT, "seccomp/compass-runner.json"), "utf8")) as {
  defaultAction: string;
  defaultErrnoRet: number;
  architectures: string[];
  syscalls: Entry[];
};
const facts = readFileSync(join(ROOT, "test/fixtures/compass-interfaces.md"), "utf8");
const section = facts.slice(facts.indexOf("## 4. Seccomp profile"), facts.indexOf("## 5."));
const upstreamNames = section
  .slice(section.indexOf("**Unconditional `SCMP_ACT_ALLOW` list"))
  .split("\n\n")[1]
  .split(",")
  .map((n) => n.trim());
const socketRow = section.split("\n").find((line) => line.startsWith("| `socket` | `args[0] SCMP_CMP_EQ`"))!;
const socketEq = socketRow
  .split("|")[3]
  .split("**Not allowed")[0]
  .match(/(?<![A-Za-z_\d])\d+/g)!
  .map(Number);
const personaRow = section.split("\n").find((line) => line.startsWith("| `personality`"))!;
const personas = personaRow.split("|")[3].match(/\d+/g)!.map(Number);

const plainAllows = profile.syscalls.filter((e) => e.action === "SCMP_ACT_ALLOW" && !(e.args && e.args.length > 0));
const allowed = new Set(plainAllows.flatMap((e) => e.names));
const filtered = (name: string) => profile.syscalls.filter((e) => e.names.includes(name) && e.args && e.args.length > 0);

/** Whether the profile lets `socket(domain, ...)` through. */
function socketAllowed(domain: number): boolean {
  return filtered("socket").some((e) =>
    e.args!.every((a) => a.index === 0 && ((a.op === "SCMP_CMP_LT" && domain < a.value) || (a.op === "SCMP_CMP_EQ" && domain === a.value))),
  );
}

describe("seccomp/compass-runner.json", () => {
  it("reads the upstream facts it is checked against", () => {
    expect(upstreamNames).toHaveLength(379);
    expect(socketEq).toContain(10);
    expect(personas).toEqual([0, 8, 131072, 131080, 4294967295]);
  });

  it("denies by default with EPERM and targets x86_64 only (CR-10, CR-13)", () => {
    expect(profile.defaultAction).toBe("SCMP_ACT_ERRNO");
    expect(profile.defaultErrnoRet).toBe(1);
    expect(profile.architectures).toEqual(["SCMP_ARCH_X86_64"]);
  });

  it("allows exactly the upstream unconditional list, each name once", () => {
    const names = plainAllows.flatMap((e) => e.names);
    expect(names.length).toBe(new Set(names).size);
    expect([...allowed].sort()).toEqual([...upstreamNames].sort());
  });

  it("keeps clone, clone3, unshare, mount, umount2, pivot_root and setns without argument filters, as measured", () => {
    for (const name of ["clone", "clone3", "unshare", "mount", "umount2", "pivot_root", "setns"]) expect(allowed.has(name), name).toBe(true);
  });

  it("filters socket by address family: AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK yes, AF_VSOCK no", () => {
    for (const domain of [0, 1, 2, ...socketEq]) expect(socketAllowed(domain), `domain ${domain}`).toBe(true);
    for (const domain of [3, 4, 5, 6, 11, 12, 19, 20, 23, 25, 34, 37, 38, 40, 46, 100]) expect(socketAllowed(domain), `domain ${domain}`).toBe(false);
    expect(allowed.has("socket")).toBe(false);
  });

  it("filters personality to the upstream personas", () => {
    expect(
      filtered("personality")
        .map((e) => e.args![0].value)
        .sort((a, b) => a - b),
    ).toEqual(personas);
    expect(allowed.has("personality")).toBe(false);
  });

  it("allows none of the calls upstream leaves out", () => {
    for (const name of [
      "bpf",
      "kexec_load",
      "init_module",
      "finit_module",
      "reboot",
      "keyctl",
      "userfaultfd",
      "perf_event_open",
      "io_uring_setup",
      "open_by_handle_at",
      "fsopen",
      "mount_setattr",
      "chroot",
    ]) {
      expect(allowed.has(name), name).toBe(false);
    }
  });
});
