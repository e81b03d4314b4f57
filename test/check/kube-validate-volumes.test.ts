// The common volume sources as kube-apiserver validates them: an object it accepts and one it refuses
// for each check, and a volume with an error that mounts no longer find.
import { describe, expect, it } from "vitest";
import { apiServerProblems } from "../../src/check/kube-validate.ts";
import { accepts, NEWEST, type Obj, refuses } from "../support/api-server.ts";

const pod = (source: Obj, mount = false): Obj => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web" },
  spec: {
    containers: [{ name: "web", image: "nginx:1.27", ...(mount ? { volumeMounts: [{ name: "data", mountPath: "/data" }] } : {}) }],
    volumes: [{ name: "data", ...source }],
  },
});
const V = "spec.volumes.0";
const token = (extra: Obj = {}) => ({ serviceAccountToken: { audience: "vault", path: "token", ...extra } });
const projected = (sources: unknown[], extra: Obj = {}) => pod({ projected: { sources, ...extra } });

describe("secret and configMap volumes (validateSecretVolumeSource, validateConfigMapVolumeSource)", () => {
  it("name their object, with modes up to 0777 and items inside the volume", () => {
    accepts(pod({ secret: { secretName: "tls", defaultMode: 0o400, items: [{ key: "tls.crt", path: "certs/tls.crt", mode: 0o444 }] } }));
    refuses(pod({ secret: { secretName: "" } }), `${V}.secret.secretName`, "needs secretName");
    refuses(pod({ configMap: {} }), `${V}.configMap.name`, "needs the ConfigMap's name");
    refuses(pod({ secret: { secretName: "tls", defaultMode: 512 } }), `${V}.secret.defaultMode`, "outside 0 to 0777");
    refuses(pod({ configMap: { name: "c", items: [{ key: "a", path: "a", mode: -1 }] } }), `${V}.configMap.items.0.mode`, "outside 0 to 0777");
    refuses(pod({ configMap: { name: "c", items: [{ key: "", path: "a" }] } }), `${V}.configMap.items.0.key`, "needs the key");
    for (const path of ["../escape", "/abs", "..cert"])
      refuses(pod({ secret: { secretName: "tls", items: [{ key: "k", path }] } }), `${V}.secret.items.0.path`, "relative path inside the volume");
  });
});

describe("hostPath, claim and downward API volumes", () => {
  it("need their path, claim and one reference per file", () => {
    refuses(pod({ hostPath: { path: "" } }), `${V}.hostPath.path`, "needs its path");
    refuses(pod({ hostPath: { path: "/var/../etc" } }), `${V}.hostPath.path`, "must not contain '..'");
    refuses(pod({ persistentVolumeClaim: { claimName: "" } }), `${V}.persistentVolumeClaim.claimName`, "needs claimName");
    accepts(pod({ downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } }));
    refuses(pod({ downwardAPI: { items: [{ path: "labels" }] } }), `${V}.downwardAPI.items.0`, "needs fieldRef or resourceFieldRef");
  });
});

describe("projected volumes (validateProjectionSources)", () => {
  it("take one type per source, each path once, and a token of ten minutes to 2^32 seconds at a local path", () => {
    accepts(projected([token({ expirationSeconds: 600 }), { configMap: { name: "ca", items: [{ key: "ca.crt", path: "ca.crt" }] } }]));
    accepts(projected([token()]));
    refuses(projected([token({ expirationSeconds: 599 })]), `${V}.projected.sources.0.serviceAccountToken.expirationSeconds`, "under ten minutes");
    refuses(projected([token({ expirationSeconds: 4294967297 })]), `${V}.projected.sources.0.serviceAccountToken.expirationSeconds`, "over 2^32");
    refuses(projected([token({ path: "/abs/token" })]), `${V}.projected.sources.0.serviceAccountToken.path`, "relative path");
    refuses(projected([{ ...token(), configMap: { name: "settings" } }]), `${V}.projected.sources.0`, "takes one of configMap and serviceAccountToken");
    refuses(
      projected([{ configMap: { name: "a", items: [{ key: "k", path: "same" }] } }, { secret: { name: "b", items: [{ key: "k", path: "same" }] } }]),
      `${V}.projected.sources.1.secret.items.0.path`,
      "written twice",
    );
    refuses(projected([token()], { defaultMode: 1000 }), `${V}.projected.defaultMode`, "outside 0 to 0777");
  });

  it("leaves a volume with an error out of the pod's volumes, as the API server does: its mounts name no volume", () => {
    const problems = apiServerProblems(pod({ secret: { secretName: "" } }, true), NEWEST).map((p) => p.path.join("."));
    expect(problems).toEqual([`${V}.secret.secretName`, "spec.containers.0.volumeMounts.0.name"]);
  });
});
