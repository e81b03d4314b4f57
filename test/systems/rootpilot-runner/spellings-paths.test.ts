// Rootpilot runner paths in every spelling (issue 39): the token, learned store, HOME and ~/.aws paths as the kubelet cleans mounts and Node opens files.
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { example, podOf, verdict } from "../../support/spellings.ts";
import { EKS, GKE, KIND, SPELLINGS, errorsOf, of, runner, withEnv } from "./spelling-edits.ts";

describe("paths as the kubelet cleans mounts and Node opens files (RP-01, RP-05, RP-06)", () => {
  const TOKEN = "/var/run/secrets/tokens/gke-oidc/token";
  const STORE = "/var/lib/rootpilot/learned.db";
  const mountOf = (objects: K8sObject[], name: string) => runner(objects).volumeMounts.find((m) => m.name === name)!;

  const sameToken = [
    "/var/run/secrets/tokens/gke-oidc//token",
    "/var/run/secrets/tokens/./gke-oidc/token",
    "//var/run/secrets/tokens/gke-oidc/token",
    "/var/run/secrets/tokens/other/../gke-oidc/token",
  ];
  for (const path of sameToken) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      it(`RUNNER_GKE_TOKEN_PATH ${path} ${spelling} is the default token`, () => {
        const objects = withEnv("RUNNER_GKE_TOKEN_PATH", path, GKE);
        edit(objects, "RUNNER_GKE_TOKEN_PATH");
        expect(verdict(objects)).toEqual([]);
      });
    }
  }

  const otherFile: [path: string, why: string][] = [
    [`${TOKEN}/`, "a trailing slash asks for a directory"],
    [`${TOKEN}/.`, "a trailing /. asks for a directory"],
    ["/var/run/secrets/tokens/gke-oidc/../token", "`..` leaves the token volume"],
    ["/var/run/secrets/tokens/gke-oidc/token2", "another file"],
  ];
  for (const [path, why] of otherFile) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      it(`RUNNER_GKE_TOKEN_PATH ${path} ${spelling} is RP-06 (${why})`, () => {
        const objects = withEnv("RUNNER_GKE_TOKEN_PATH", path, GKE);
        edit(objects, "RUNNER_GKE_TOKEN_PATH");
        expect(errorsOf(verdict(objects), "RP-06")).not.toEqual([]);
      });
    }
  }

  it("a relative token path is read from the container's workingDir", () => {
    const objects = withEnv("RUNNER_GKE_TOKEN_PATH", "gke-oidc/./token", GKE);
    runner(objects).workingDir = "/var/run/secrets/tokens";
    expect(verdict(objects)).toEqual([]);
    runner(objects).workingDir = "/app";
    expect(errorsOf(verdict(objects), "RP-06")).not.toEqual([]);
  });

  it("a relative token path without a workingDir is not judged (the image's WORKDIR is not in the manifest)", () => {
    expect(verdict(withEnv("RUNNER_GKE_TOKEN_PATH", "gke-oidc/token", GKE))).toEqual([]);
  });

  for (const mountPath of ["/var/run/secrets/tokens/gke-oidc/", "/var/run//secrets/tokens/gke-oidc", "/var/run/secrets/./tokens/gke-oidc"]) {
    it(`the token volume mounted at ${mountPath} is the same mount`, () => {
      const objects = example(GKE);
      mountOf(objects, "rootpilot-token").mountPath = mountPath;
      expect(verdict(objects)).toEqual([]);
    });

    it(`the token mounted at ${mountPath}: a wrong audience is still caught`, () => {
      const objects = example(GKE);
      mountOf(objects, "rootpilot-token").mountPath = mountPath;
      podOf(objects, KIND).volumes.find((v: { name: string }) => v.name === "rootpilot-token").projected.sources[0].serviceAccountToken.audience = "sts";
      expect(errorsOf(verdict(objects), "RP-06")).toEqual([
        "RP-06 error Deployment/rootpilot-runner spec.template.spec.volumes[2].projected.sources[0].serviceAccountToken.audience",
      ]);
    });
  }

  it("a projected token path written ./token is the file token", () => {
    const objects = example(GKE);
    podOf(objects, KIND).volumes.find((v: { name: string }) => v.name === "rootpilot-token").projected.sources[0].serviceAccountToken.path = "./token";
    expect(verdict(objects)).toEqual([]);
  });

  it("a token volume mounted elsewhere is RP-06 in any spelling of the mount", () => {
    const objects = example(GKE);
    mountOf(objects, "rootpilot-token").mountPath = "/var/run/secrets//tokens/gke/";
    expect(errorsOf(verdict(objects), "RP-06")).not.toEqual([]);
  });

  const sameStore = [
    "/var/lib/rootpilot//learned.db",
    "/var/lib/./rootpilot/learned.db",
    "//var/lib/rootpilot/learned.db",
    "/var/lib/x/../rootpilot/learned.db",
  ];
  for (const path of sameStore) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      it(`RUNNER_LEARNED_STORE_PATH ${path} ${spelling} is on its emptyDir`, () => {
        const objects = withEnv("RUNNER_LEARNED_STORE_PATH", path, EKS);
        edit(objects, "RUNNER_LEARNED_STORE_PATH");
        expect(verdict(objects)).toEqual([]);
      });
    }
  }

  const offStore = [`${STORE}/`, "/var/lib/rootpilot/../learned.db", "/var/lib/rootpilot2/learned.db"];
  for (const path of offStore) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      it(`RUNNER_LEARNED_STORE_PATH ${path} ${spelling} is RP-05`, () => {
        const objects = withEnv("RUNNER_LEARNED_STORE_PATH", path, EKS);
        edit(objects, "RUNNER_LEARNED_STORE_PATH");
        expect(errorsOf(verdict(objects), "RP-05")).not.toEqual([]);
      });
    }
  }

  for (const mountPath of ["/var/lib/rootpilot/", "/var//lib/rootpilot", "/var/lib/./rootpilot"]) {
    it(`the learned store's emptyDir mounted at ${mountPath} holds it`, () => {
      const objects = example(EKS);
      mountOf(objects, "learned-store").mountPath = mountPath;
      expect(verdict(objects)).toEqual([]);
    });
  }

  for (const home of ["/home//node", "/home/node/", "/home/./node"]) {
    it(`HOME ${home} is the emptyDir at /home/node (RP-01)`, () => {
      expect(verdict(withEnv("HOME", home, GKE))).toEqual([]);
    });
  }

  it("an empty or relative HOME is not judged: Node's os.homedir returns it, and the SDK reads it from the working directory", () => {
    for (const home of ["", "home/node"]) expect(verdict(withEnv("HOME", home, GKE))).toEqual([]);
  });

  it("a relative learned store path is read from the container's workingDir", () => {
    const objects = withEnv("RUNNER_LEARNED_STORE_PATH", "rootpilot/learned.db", EKS);
    expect(verdict(objects)).toEqual([]);
    runner(objects).workingDir = "/var/lib/";
    expect(verdict(objects)).toEqual([]);
    runner(objects).workingDir = "/srv";
    expect(errorsOf(verdict(objects), "RP-05")).toEqual(["RP-05 error Deployment/rootpilot-runner spec.template.spec.containers[0].env[5].value"]);
  });

  it("the home emptyDir mounted at /home/node/ is $HOME's", () => {
    const objects = example(GKE);
    mountOf(objects, "home").mountPath = "/home/node/";
    expect(verdict(objects)).toEqual([]);
  });

  it("HOME elsewhere leaves $HOME without its emptyDir in every spelling (RP-01)", () => {
    for (const home of ["/home/nodes", "/home/node/../root"]) {
      expect(of(verdict(withEnv("HOME", home, GKE)), "RP-01")).toEqual([
        "RP-01 warning Deployment/rootpilot-runner spec.template.spec.containers[0].volumeMounts",
      ]);
    }
  });

  it("~/.aws mounted in another spelling is still an ~/.aws mount (RP-07), at $HOME (RP-01 silent)", () => {
    for (const mountPath of ["/home/node/.aws/", "/home/node//.aws", "/home/node/.aws/."]) {
      const objects = example(EKS);
      const pod = podOf(objects, KIND);
      pod.volumes.push({ name: "aws", emptyDir: {} });
      runner(objects).volumeMounts.push({ name: "aws", mountPath });
      expect(verdict(objects)).toEqual(["RP-07 warning Deployment/rootpilot-runner spec.template.spec.containers[0].volumeMounts[3].mountPath"]);
    }
  });

  it("~/.aws mounted away from $HOME is RP-01 in any spelling", () => {
    const objects = example(EKS);
    podOf(objects, KIND).volumes.push({ name: "aws", emptyDir: {} });
    runner(objects).volumeMounts.push({ name: "aws", mountPath: "/root//.aws/" });
    expect(errorsOf(verdict(objects), "RP-01")).toEqual(["RP-01 error Deployment/rootpilot-runner spec.template.spec.containers[0].volumeMounts[3].mountPath"]);
  });
});
