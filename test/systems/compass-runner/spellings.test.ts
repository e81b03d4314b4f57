// The Compass Runner's rules judge values, not their spelling. Each test edits
// the rendered examples/compass-runner.yaml: an equivalent spelling keeps the
// verdict of the rendered form (none), a broken value is caught in every spelling.
// Policies (CR-01, CR-06, CR-15) are in spellings-policies.test.ts.
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { checked, envToConfigMap, errorIds, example, objectOf, podOf, verdict } from "../../support/spellings.ts";
import { EXAMPLE, linesOf, runner, setEnv } from "./spelling-edits.ts";

const KVM = "devices.kubevirt.io/kvm";

describe("the rendered Runner is clean", () => {
  it("has no finding", () => {
    expect(verdict(example(EXAMPLE))).toEqual([]);
  });
});

describe("CR-08: the KVM device by value", () => {
  it.each([
    ["1000m in the limit and the request", ["1000m", "1000m"]],
    ["1000m in the limit, 1 in the request", ["1000m", "1"]],
    ["the number 1", [1, 1]],
    ["1e0 and 0.001k", ["1e0", "0.001k"]],
  ])("%s is 1", (_, [limit, request]) => {
    const objects = runner((_o, _p, c) => {
      c.resources.limits[KVM] = limit;
      c.resources.requests[KVM] = request;
    });
    expect(verdict(objects)).toEqual([]);
  });

  it("a request left to default to the 1000m limit is 1", () => {
    const objects = runner((_o, _p, c) => {
      c.resources.limits[KVM] = "1000m";
      delete c.resources.requests[KVM];
    });
    expect(verdict(objects)).toEqual([]);
  });

  it.each([
    ["2", "2"],
    ["2000m", "2000m"],
    ["2 in the limit, 1 in the request", "2"],
  ])("a limit of %s is caught", (_, limit) => {
    const objects = runner((_o, _p, c) => {
      c.resources.limits[KVM] = limit;
      if (!_.includes("request")) c.resources.requests[KVM] = limit;
    });
    expect(linesOf(objects, "CR-08")).toContainEqual(`CR-08 error DaemonSet/compass-runner spec.template.spec.containers[0].resources.limits["${KVM}"]`);
  });

  it("a request other than the limit is caught, in any unit", () => {
    const objects = runner((_o, _p, c) => {
      c.resources.limits[KVM] = "1000m";
      c.resources.requests[KVM] = "2000m";
    });
    expect(errorIds(objects)).toContain("CR-08");
  });

  it("a /dev host tree is caught in every spelling, as CR-08's finding alone (not CR-06's nor CR-11's)", () => {
    for (const path of ["/dev/kvm", "//dev/kvm", "/./dev/kvm", "/dev/./kvm", "/dev//kvm/", "/dev"]) {
      const objects = runner((_o, p) => void p.volumes.push({ name: "kvm", hostPath: { path } }));
      expect(verdict(objects), path).toEqual(["CR-08 error DaemonSet/compass-runner spec.template.spec.volumes[5].hostPath.path"]);
    }
  });

  it("the /dev finding says what to use instead: the device plugin's resource the container limits, or kvmResourceName", () => {
    const withPlugin = runner((_o, p) => void p.volumes.push({ name: "kvm", hostPath: { path: "/dev/./kvm" } }));
    expect(checked(withPlugin).findings.map((f) => f.message)).toEqual([
      `hostPath /dev/./kvm (/dev/kvm) is under /dev: remove the volume; the device plugin's ${KVM}, which the container limits, injects /dev/kvm with the cgroup device allowance a hostPath lacks`,
    ]);
    const without = runner((_o, p, c) => {
      p.volumes.push({ name: "kvm", hostPath: { path: "/dev/kvm" } });
      delete c.resources.limits[KVM];
      delete c.resources.requests[KVM];
    });
    expect(checked(without).findings.map((f) => f.message)).toContain(
      "hostPath /dev/kvm is under /dev: remove the volume and request and limit 1 of the device plugin's resource (kvmResourceName, such as devices.kubelet.io/kvm), which injects /dev/kvm with the cgroup device allowance a hostPath lacks",
    );
  });
});

describe("CR-19 and G-08: memory by value", () => {
  // The rendered limit and request: 8704Mi.
  it.each([
    ["8.5Gi", "8704Mi"],
    ["8704Mi", "8.5Gi"],
    ["9126805504", "8912896Ki"],
    [9126805504, "8704Mi"],
  ])("a limit of %s and a request of %s are one value", (limit, request) => {
    const objects = runner((_o, _p, c) => {
      c.resources.limits.memory = limit;
      c.resources.requests.memory = request;
    });
    expect(verdict(objects)).toEqual([]);
  });

  it("a request left to default to a limit in Gi is the limit (CR-19, G-08)", () => {
    const objects = runner((_o, _p, c) => {
      c.resources.limits.memory = "8.5Gi";
      delete c.resources.requests.memory;
    });
    expect(verdict(objects)).toEqual([]);
  });

  it("a request below the limit is caught in any unit (a warning)", () => {
    const objects = runner((_o, _p, c) => {
      c.resources.limits.memory = "9Gi";
      c.resources.requests.memory = "8704Mi";
    });
    expect(linesOf(objects, "CR-19")).toEqual(["CR-19 warning DaemonSet/compass-runner spec.template.spec.containers[0].resources.requests.memory"]);
  });

  const belowGuest = "CR-19 error DaemonSet/compass-runner spec.template.spec.containers[0].resources.limits.memory";
  it.each(["1Gi", "1024Mi", "1073741824", "1G", "2047Mi", "0.5Gi"])("a limit of %s, below one guest's 2048 MiB, is caught", (limit) => {
    const objects = runner((_o, _p, c) => {
      c.resources.limits.memory = limit;
      c.resources.requests.memory = limit;
    });
    expect(linesOf(objects, "CR-19")).toEqual([belowGuest]);
  });

  it.each(["2Gi", "2048Mi", "2147483648"])("a limit of %s is one guest's 2048 MiB: not below it", (limit) => {
    const objects = runner((_o, _p, c) => {
      c.resources.limits.memory = limit;
      c.resources.requests.memory = limit;
    });
    expect(linesOf(objects, "CR-19")).toEqual([]);
  });

  it("the guest size is read as compass-runner reads it (+2048 is 2048) and through a ConfigMap", () => {
    const signed = runner((_o, _p, c) => {
      c.resources.limits.memory = c.resources.requests.memory = "2047Mi";
      setEnv(c, "COMPASS_MICROVM_MEMORY_MB", "+2048");
    });
    expect(linesOf(signed, "CR-19")).toEqual([belowGuest]);
    const moved = runner((objects, _p, c) => {
      c.resources.limits.memory = c.resources.requests.memory = "1Gi";
      envToConfigMap(objects, "DaemonSet", "envFrom", ["COMPASS_MICROVM_MEMORY_MB"]);
    });
    expect(linesOf(moved, "CR-19")).toEqual([belowGuest]);
  });

  it("G-08: no memory limit and no request is caught (a warning)", () => {
    const objects = runner((_o, _p, c) => {
      delete c.resources.limits.memory;
      delete c.resources.requests.memory;
    });
    expect(linesOf(objects, "G-08")).toEqual([
      "G-08 warning DaemonSet/compass-runner spec.template.spec.containers[0].resources.limits.memory",
      "G-08 warning DaemonSet/compass-runner spec.template.spec.containers[0].resources.requests.memory",
    ]);
  });
});

describe("CR-19: no probe on the Runner container", () => {
  const at = (probe: string) => `DaemonSet/compass-runner spec.template.spec.containers[0].${probe}`;

  it.each([
    ["an httpGet liveness probe", "livenessProbe", { httpGet: { path: "/healthz", port: 8080 } }],
    ["an exec liveness probe", "livenessProbe", { exec: { command: ["/bin/true"] }, failureThreshold: 3 }],
    ["a tcpSocket startup probe", "startupProbe", { tcpSocket: { port: 8080 } }],
  ])("%s is an error: a restart tears down every session", (_what, probe, handler) => {
    const objects = runner((_o, _p, c) => {
      c[probe] = handler;
    });
    expect(verdict(objects)).toEqual([`CR-19 error ${at(probe)}`]);
    expect(checked(objects).findings[0].message).toMatch(
      /^a (liveness|startup) probe on the Runner container: when it fails, the kubelet restarts the container.*, and a restart tears down every microVM session on the node$/,
    );
  });

  it("a readiness probe is a warning (it restarts nothing); a network one never passes, the Runner listens on nothing", () => {
    const http = runner((_o, _p, c) => {
      c.readinessProbe = { httpGet: { path: "/ready", port: 8080 } };
    });
    expect(verdict(http)).toEqual([`CR-19 warning ${at("readinessProbe")}`]);
    expect(checked(http).findings[0].message).toBe(
      "a readiness probe (httpGet) on the Runner container, which listens on nothing: it never passes, so the pod never turns Ready",
    );
    const exec = runner((_o, _p, c) => {
      c.readinessProbe = { exec: { command: ["/bin/true"] } };
    });
    expect(verdict(exec)).toEqual([`CR-19 warning ${at("readinessProbe")}`]);
  });
});

describe("CR-07: rollout bounds scaled as the DaemonSet controller scales them", () => {
  const rolling = (objects: K8sObject[]) => objectOf(objects, "DaemonSet").spec.updateStrategy.rollingUpdate;
  it.each([
    ["maxSurge 0%", { maxSurge: "0%" }],
    ["maxUnavailable 100%", { maxUnavailable: "100%" }],
    ["maxUnavailable 50% (rounded up on one node)", { maxUnavailable: "50%" }],
    ["both left to their defaults", { maxSurge: undefined, maxUnavailable: undefined }],
  ])("%s is the rendered rollout", (_, bounds) => {
    const objects = runner((o) => Object.assign(rolling(o), bounds));
    expect(verdict(objects)).toEqual([]);
  });

  it.each([
    ["maxSurge 1", { maxSurge: 1 }, "maxSurge"],
    ["maxSurge 1%", { maxSurge: "1%" }, "maxSurge"],
    ["maxSurge 100%", { maxSurge: "100%" }, "maxSurge"],
    ["maxUnavailable 2", { maxUnavailable: 2 }, "maxUnavailable"],
  ])("%s is caught", (_, bounds, field) => {
    const objects = runner((o) => Object.assign(rolling(o), bounds));
    expect(linesOf(objects, "CR-07")).toContainEqual(`CR-07 error DaemonSet/compass-runner spec.updateStrategy.rollingUpdate.${field}`);
  });
});

describe("paths cleaned as the kubelet cleans them", () => {
  const SPELLED: [string, (path: string) => string][] = [
    ["with //", (p) => p.replace("/compass/", "//compass//")],
    ["with ./", (p) => p.replace("/compass/", "/./compass/./")],
    ["with a trailing /", (p) => `${p}/`],
    ["with ..", (p) => p.replace("/compass/", "/compass/x/../")],
  ];
  const MOUNTS = ["/var/lib/compass/sessions", "/run/compass", "/var/run/secrets/compass/runner", "/etc/compass/server-ca"];
  const SETTINGS = ["COMPASS_RUNNER_TOKEN_FILE", "COMPASS_MICROVM_RUNROOT", "COMPASS_MICROVM_VOLUME_ROOT", "COMPASS_RUNNER_CA"];

  for (const [how, spell] of SPELLED) {
    it(`mount paths ${how} keep the verdict`, () => {
      const objects = runner((_o, _p, c) => {
        for (const mount of c.volumeMounts) if (MOUNTS.includes(mount.mountPath)) mount.mountPath = spell(mount.mountPath);
      });
      expect(verdict(objects)).toEqual([]);
    });
    it(`path settings ${how} keep the verdict (CR-03, CR-11, CR-20)`, () => {
      const objects = runner((_o, _p, c) => {
        for (const env of c.env) if (SETTINGS.includes(env.name)) env.value = spell(env.value);
      });
      expect(verdict(objects)).toEqual([]);
    });
  }

  it("a relative mount path is made absolute, as the kubelet does", () => {
    const objects = runner((_o, _p, c) => {
      c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === "/run/compass").mountPath = "run/compass";
    });
    expect(verdict(objects)).toEqual([]);
  });

  it("a token projected under a spelled path is the token file", () => {
    const objects = runner((_o, p) => {
      p.volumes.find((v: { name: string }) => v.name === "compass-runner-token").projected.sources[0].serviceAccountToken.path = "./token";
    });
    expect(linesOf(objects, "CR-03")).toEqual([]);
  });

  const broken: [string, string, string, RegExp][] = [
    ["CR-03", "COMPASS_RUNNER_TOKEN_FILE", "/var/run/secrets/compass/runner/../token", /^CR-03 error .*volumes$/],
    ["CR-03", "COMPASS_RUNNER_TOKEN_FILE", "/var/run/secrets/compass/runner//./other", /^CR-03 error .*serviceAccountToken\.path$/],
    ["CR-11", "COMPASS_MICROVM_VOLUME_ROOT", "/var/lib/compass/sessions/./", /^CR-11 error .*env\[3\]\.value$/],
    ["CR-11", "COMPASS_MICROVM_VOLUME_ROOT", "/var/lib//compass/sessions/volumes/..", /^CR-11 error .*env\[3\]\.value$/],
    ["CR-11", "COMPASS_MICROVM_VOLUME_ROOT", "/var/lib/compass/x/../volumes", /^CR-11 error .*env\[3\]\.value$/],
  ];
  it.each(broken)("%s: %s=%s is caught", (id, name, value, line) => {
    const objects = runner((_o, _p, c) => setEnv(c, name, value));
    expect(linesOf(objects, id)).toContainEqual(expect.stringMatching(line));
  });

  it("CR-20: a run root on a read-only mount is caught in every spelling", () => {
    for (const value of ["/etc/compass/server-ca/run", "/etc//compass/server-ca/./run", "/run/compass/../../etc/compass/server-ca/run"]) {
      const objects = runner((_o, _p, c) => setEnv(c, "COMPASS_MICROVM_RUNROOT", value));
      expect(linesOf(objects, "CR-20"), value).toContainEqual(expect.stringMatching(/^CR-20 error .*env\[2\]\.value$/));
    }
  });

  it("CR-11: host trees that overlap or sit under a system path are caught in every spelling", () => {
    const tree = (o: K8sObject[]) => podOf(o, "DaemonSet").volumes[1].hostPath;
    for (const path of ["/var/lib/compass/sessions/x", "/var/lib//compass/sessions/x", "/var/lib/compass/./sessions/x/"]) {
      const objects = runner((o) => void (tree(o).path = path));
      expect(linesOf(objects, "CR-11"), path).toContainEqual(expect.stringMatching(/^CR-11 error .*volumes\[1\]\.hostPath\.path$/));
    }
    for (const path of ["/etc/compass", "//etc/compass", "/./etc/compass/"]) {
      const objects = runner((o) => void (tree(o).path = path));
      expect(linesOf(objects, "CR-11"), path).toContainEqual(expect.stringMatching(/^CR-11 error .*volumes\[1\]\.hostPath\.path$/));
    }
  });
});

describe("settings through envFrom, configMapKeyRef and $(VAR)", () => {
  const HOW = ["envFrom", "configMapKeyRef"] as const;
  const viaVar = (c: any, name: string) => {
    const entry = c.env.find((e: { name: string }) => e.name === name);
    c.env.unshift({ name: "RIGGING_TEST_PART", value: entry.value });
    entry.value = "$(RIGGING_TEST_PART)";
  };
  const SETTINGS: [id: string, name: string, broken: string][] = [
    ["CR-02", "COMPASS_SERVER_ADDR", "http://compass-server.compass.svc"],
    ["CR-03", "COMPASS_RUNNER_TOKEN_FILE", "/var/run/secrets/compass/elsewhere/token"],
    ["CR-20", "COMPASS_MICROVM_CPUS", "two"],
    ["CR-20", "COMPASS_MICROVM_QUOTA_REQUIRED", "enabled"],
  ];

  for (const [id, name, value] of SETTINGS) {
    for (const how of HOW) {
      it(`${id}: ${name} through ${how} keeps the verdict`, () => {
        expect(verdict(runner((o) => void envToConfigMap(o, "DaemonSet", how, [name])))).toEqual([]);
      });
      it(`${id}: ${name}=${value} through ${how} is caught`, () => {
        const objects = runner((o, _p, c) => {
          setEnv(c, name, value);
          envToConfigMap(o, "DaemonSet", how, [name]);
        });
        expect(errorIds(objects)).toContain(id);
      });
    }
    it(`${id}: ${name} through $(VAR) keeps the verdict`, () => {
      expect(verdict(runner((_o, _p, c) => viaVar(c, name)))).toEqual([]);
    });
    it(`${id}: ${name}=${value} through $(VAR) is caught`, () => {
      const objects = runner((_o, _p, c) => {
        setEnv(c, name, value);
        viaVar(c, name);
      });
      expect(errorIds(objects)).toContain(id);
    });
  }

  it("CR-20: a forbidden variable from a ConfigMap is caught", () => {
    const objects = runner((o, _p, c) => {
      setEnv(c, "COMPASS_RUNNER_TOKEN", "static");
      envToConfigMap(o, "DaemonSet", "envFrom", ["COMPASS_RUNNER_TOKEN"]);
    });
    expect(errorIds(objects)).toContain("CR-20");
  });

  it("CR-20: no run root is not an error when a ConfigMap outside the input may set it", () => {
    const objects = runner((_o, _p, c) => {
      c.env = c.env.filter((e: { name: string }) => e.name !== "COMPASS_MICROVM_RUNROOT");
      c.envFrom = [{ configMapRef: { name: "elsewhere" } }];
    });
    expect(errorIds(objects)).not.toContain("CR-20");
  });
});
