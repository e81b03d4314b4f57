// CR-10: the shipped Compass Runner seccomp profile. It starts from the
// container runtime's default allow-list for x86_64 and adds clone, clone3,
// unshare and mount without argument filters (measured to boot, not
// minimized); these tests keep it that shape.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/cli.ts";

interface Entry {
  names: string[];
  action: string;
  args?: unknown[];
}
const profile = JSON.parse(readFileSync(join(ROOT, "seccomp/compass-runner.json"), "utf8")) as {
  defaultAction: string;
  defaultErrnoRet: number;
  archMap: { architecture: string }[];
  syscalls: Entry[];
};
const plainAllows = profile.syscalls.filter((e) => e.action === "SCMP_ACT_ALLOW" && !(e.args && e.args.length > 0));
const allowed = new Set(plainAllows.flatMap((e) => e.names));

describe("seccomp/compass-runner.json", () => {
  it("denies by default with EPERM and targets x86_64 only (CR-13)", () => {
    expect(profile.defaultAction).toBe("SCMP_ACT_ERRNO");
    expect(profile.defaultErrnoRet).toBe(1);
    expect(profile.archMap.map((a) => a.architecture)).toEqual(["SCMP_ARCH_X86_64"]);
  });

  it("allows clone, clone3, unshare and mount in one entry, without argument filters (CR-10)", () => {
    const entries = profile.syscalls.filter((e) => e.names.some((n) => ["clone", "clone3", "unshare", "mount"].includes(n)));
    expect(entries).toEqual([{ names: ["clone", "clone3", "mount", "unshare"], action: "SCMP_ACT_ALLOW" }]);
  });

  it("lists each unconditionally allowed syscall once", () => {
    const names = plainAllows.flatMap((e) => e.names);
    expect(names.length).toBe(new Set(names).size);
  });

  it("keeps what a KVM virtual machine monitor needs from the default list", () => {
    for (const name of ["ioctl", "mmap", "munmap", "mprotect", "eventfd2", "epoll_create1", "epoll_ctl", "epoll_pwait", "openat", "read", "write", "pread64", "pwrite64", "futex", "timerfd_create", "signalfd4"]) {
      expect(allowed.has(name), name).toBe(true);
    }
  });

  it("does not allow what the default list reserves for capabilities the Runner does not have", () => {
    for (const name of ["ptrace", "process_vm_readv", "kexec_load", "init_module", "bpf", "setns", "pivot_root", "umount2", "reboot"]) {
      expect(allowed.has(name), name).toBe(false);
    }
  });
});
