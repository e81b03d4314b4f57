// An Ingress as kube-apiserver validates it on create: an object it accepts and one it refuses for each
// check, and the releases that change a backend's Service name rule and judge the class annotation.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";

const backend = (port: Obj = { name: "http" }, name = "web"): Obj => ({ service: { name, port } });
const ingress = (spec: Obj = {}, path: Obj = {}, annotations?: Obj): Obj => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "Ingress",
  metadata: { name: "web", ...(annotations ? { annotations } : {}) },
  spec: { rules: [{ host: "web.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: backend(), ...path }] } }], ...spec },
});
const PATH = "spec.rules.0.http.paths.0";
const rule = (r: Obj) => ingress({ rules: [r] });

describe("an Ingress's rules (validateIngressRules, validateHTTPIngressPath)", () => {
  it("has rules or a default backend", () => {
    accepts(ingress());
    accepts(ingress({ rules: [], defaultBackend: backend() }));
    refuses(ingress({ rules: [] }), "spec", "needs rules or a defaultBackend");
  });

  it("names hosts as DNS names, a wildcard only as a first label, never an IP address", () => {
    accepts(rule({ host: "*.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: backend() }] } }));
    refuses(rule({ host: "10.0.0.1" }), "spec.rules.0.host", "must be a DNS name, not an IP address");
    refuses(rule({ host: "*.*.example.com" }), "spec.rules.0.host", "a wildcard DNS-1123 subdomain");
    refuses(rule({ host: "Web.Example.com" }), "spec.rules.0.host", "a lowercase RFC 1123 subdomain");
    refuses(rule({ http: { paths: [] } }), "spec.rules.0.http.paths", "at least one path");
  });

  it("keeps Exact and Prefix paths absolute and plain, an ImplementationSpecific one absolute when set", () => {
    refuses(ingress({}, { path: "web" }), `${PATH}.path`, "must be absolute");
    refuses(ingress({}, { path: "/a//b" }), `${PATH}.path`, "must not contain '//'");
    refuses(ingress({}, { path: "/a/.." }), `${PATH}.path`, "cannot end with '/..'");
    accepts(ingress({}, { path: "", pathType: "ImplementationSpecific" }));
    refuses(ingress({}, { path: "web", pathType: "ImplementationSpecific" }), `${PATH}.path`, "must be absolute");
  });
});

describe("a backend (validateIngressBackend)", () => {
  it("is a Service with one port name or number, or a resource, not both and not neither", () => {
    refuses(ingress({}, { backend: {} }), `${PATH}.backend`, "needs a service or a resource");
    refuses(ingress({}, { backend: { ...backend(), resource: { kind: "Bucket", name: "a" } } }), `${PATH}.backend`, "not both");
    refuses(ingress({}, { backend: backend({ name: "http", number: 80 }) }), `${PATH}.backend.service.port`, "a name or a number, not both");
    refuses(ingress({}, { backend: backend({}) }), `${PATH}.backend.service.port`, "needs a port name or number");
    refuses(ingress({}, { backend: backend({ number: 70000 }) }), `${PATH}.backend.service.port.number`, "outside 1-65535");
    refuses(ingress({}, { backend: backend({ name: "http_1" }) }), `${PATH}.backend.service.port.name`, "is not a valid port name");
    refuses(
      ingress({}, { backend: { resource: { apiGroup: "Storage.K8s", kind: "Bucket", name: "assets" } } }),
      `${PATH}.backend.resource.apiGroup`,
      "not a valid API group",
    );
    refuses(ingress({}, { backend: { resource: { kind: "Bucket", name: "a/b" } } }), `${PATH}.backend.resource.name`, "is not a valid name");
  });

  it("names its Service by the release's rule: a DNS-1035 label before 1.36, a DNS-1123 label from 1.36", () => {
    accepts(ingress({}, { backend: backend({ number: 80 }, "9web") }));
    refuses(ingress({}, { backend: backend({ number: 80 }, "9web") }), `${PATH}.backend.service.name`, "a DNS-1035 label", "1.35");
  });
});

describe("TLS and the class (validateIngressTLS, ValidateIngressCreate)", () => {
  it("names TLS hosts as DNS names and the Secret as a subdomain", () => {
    accepts(ingress({ tls: [{ hosts: ["*.example.com"], secretName: "web-tls" }] }));
    refuses(ingress({ tls: [{ hosts: ["Web.example.com"] }] }), "spec.tls.0.hosts.0", "is not a valid host");
    refuses(ingress({ tls: [{ hosts: ["web.example.com"], secretName: "Web_TLS" }] }), "spec.tls.0.secretName", "not a valid Secret name");
  });

  it("names the class as a subdomain, the annotation the same from 1.29", () => {
    refuses(ingress({ ingressClassName: "Nginx_Public" }), "spec.ingressClassName", "not a valid IngressClass name");
    const both = ingress({ ingressClassName: "nginx" }, {}, { "kubernetes.io/ingress.class": "traefik" });
    refuses(both, "metadata.annotations.kubernetes.io/ingress.class", "they must match");
    accepts(both, "1.24");
  });
});
