// CR-03 and CS-15 on a real kube-apiserver: the token the Runner's projected
// volume asks for is the one the Server's runner-clusters entry accepts, the
// JWKS the render notes tell users to copy verifies it, and open discovery
// lets the unauthenticated Server read the issuer's keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { createPublicKey, verify, type JsonWebKey } from "node:crypto";
import { promisify } from "node:util";
import { parse } from "yaml";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { ISSUER, startControlPlane, type ControlPlane } from "./support/control-plane.ts";
import { deployerOf, examplePath, install, render } from "./support/install.ts";

const exec = promisify(execFile);
let cp: ControlPlane;
let objects: K8sObject[];
let notes: string;
const file = examplePath("compass.yaml");

beforeAll(async () => {
  cp = await startControlPlane();
  ({ objects, notes } = await render(file));
  await install(cp, objects, deployerOf(file));
});
afterAll(async () => {
  await cp?.stop();
});

interface Entry {
  name: string;
  issuer: string;
  audience: string;
  namespace: string;
  serviceAccount: string;
  maxTokenLifetime: string;
}

/** The Server's --runner-clusters entry, as rendered. */
function runnerClusters(): Entry {
  const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-runner-clusters")) as K8sObject & { data: Record<string, string> };
  return (parse(cm.data["clusters.yaml"]) as { clusters: Entry[] }).clusters[0];
}

/** The projected token the Runner DaemonSet's volume asks for. */
function projectedToken(): { audience: string; expirationSeconds: number; serviceAccount: string; namespace: string } {
  const ds = objects.find((o) => o.kind === "DaemonSet") as any;
  const sources = ds.spec.template.spec.volumes.flatMap((v: any) => v.projected?.sources ?? []);
  const token = sources.find((s: any) => s.serviceAccountToken)?.serviceAccountToken;
  return { ...token, serviceAccount: ds.spec.template.spec.serviceAccountName, namespace: ds.metadata.namespace };
}

const b64json = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));

async function requestToken(): Promise<string> {
  const t = projectedToken();
  const r = await cp.api("POST", `/api/v1/namespaces/${t.namespace}/serviceaccounts/${t.serviceAccount}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { audiences: [t.audience], expirationSeconds: t.expirationSeconds },
  });
  expect(r.status, r.text).toBe(201);
  return (r.json() as { status: { token: string } }).status.token;
}

describe("the Runner's token, as the API server mints it (CR-03, CS-09)", () => {
  it("carries the issuer, audience, subject and lifetime the Server's entry accepts", async () => {
    const entry = runnerClusters();
    const t = projectedToken();
    const [, payload] = (await requestToken()).split(".");
    const claims = b64json(payload);
    expect(entry.issuer).toBe(ISSUER);
    expect(claims.iss).toBe(entry.issuer);
    expect([claims.aud].flat()).toContain(entry.audience);
    expect(claims.sub).toBe(`system:serviceaccount:${entry.namespace}:${entry.serviceAccount}`);
    expect(claims.exp - claims.iat).toBe(t.expirationSeconds);
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(Number.parseInt(entry.maxTokenLifetime, 10));
  });

  it("is verified by the JWKS the notes' command copies into the jwksFile ConfigMap (CS-15)", async () => {
    const command = /^\s*(kubectl get --raw \/openid\/v1\/jwks > jwks\.json && kubectl .*create configmap .*)$/m.exec(notes)?.[1];
    expect(command, notes).toBeDefined();
    const work = cp.dir;
    await exec("sh", ["-c", command!], { cwd: work, env: { ...process.env, KUBECONFIG: cp.kubeconfig } });
    const jwksName = /create configmap (\S+)/.exec(command!)![1];
    const ns = /kubectl -n (\S+) create/.exec(command!)![1];
    const cm = (await cp.api("GET", `/api/v1/namespaces/${ns}/configmaps/${jwksName}`)).json() as { data: Record<string, string> };
    const jwks = JSON.parse(cm.data["jwks.json"]) as { keys: (JsonWebKey & { kid: string })[] };
    const token = await requestToken();
    const [header, payload, signature] = token.split(".");
    const key = jwks.keys.find((k) => k.kid === b64json(header).kid);
    expect(key).toBeDefined();
    const signed = Buffer.from(`${header}.${payload}`);
    expect(verify("RSA-SHA256", signed, createPublicKey({ key: key!, format: "jwk" }), Buffer.from(signature, "base64url"))).toBe(true);
    // The same key refuses a token whose claims were changed.
    const forged = Buffer.from(`${header}.${Buffer.from(JSON.stringify({ ...b64json(payload), sub: "system:serviceaccount:x:y" })).toString("base64url")}`);
    expect(verify("RSA-SHA256", forged, createPublicKey({ key: key!, format: "jwk" }), Buffer.from(signature, "base64url"))).toBe(false);
  });
});

describe("allowUnauthenticatedDiscovery (CS-15)", () => {
  it("lets a caller without credentials read the issuer's discovery and keys, which it could not before", async () => {
    const anonymous = { anonymous: true };
    expect((await cp.api("GET", "/.well-known/openid-configuration", undefined, anonymous)).status).toBe(403);
    const open = await render(file, [
      "--set",
      "server.cluster.allowUnauthenticatedDiscovery=true",
      "--set",
      "server.cluster.jwksFile=null",
      "--set",
      "server.issuerEgress[0].cidr=10.96.0.1/32",
    ]);
    const binding = open.objects.filter((o) => o.kind === "ClusterRoleBinding");
    expect(binding).toHaveLength(1);
    await install(cp, binding);
    let discovery = await cp.api("GET", "/.well-known/openid-configuration", undefined, anonymous);
    // RBAC's cache takes a moment to see a new binding.
    for (let i = 0; i < 40 && discovery.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      discovery = await cp.api("GET", "/.well-known/openid-configuration", undefined, anonymous);
    }
    expect(discovery.status, discovery.text).toBe(200);
    expect(discovery.json().issuer).toBe(ISSUER);
    const keys = await cp.api("GET", "/openid/v1/jwks", undefined, anonymous);
    expect(keys.status).toBe(200);
    expect((keys.json() as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
  });
});
