// Ports by name or number, as FindPort resolves a Service's targetPort.
import { describe, expect, it } from "vitest";
import { namedPortContainers, policyPortRange, protocolOf, resolvePort } from "../../src/k8s/ports.ts";

const podSpec = {
  initContainers: [
    { name: "setup", ports: [{ name: "setup", containerPort: 7000 }] },
    { name: "proxy", restartPolicy: "Always", ports: [{ name: "proxy", containerPort: 15001 }] },
  ],
  containers: [
    {
      name: "server",
      ports: [
        { name: "https", containerPort: 8443 },
        { name: "dns", containerPort: 5353, protocol: "UDP" },
        { name: "metrics", containerPort: 9090, protocol: "TCP" },
      ],
    },
    {
      name: "other",
      ports: [
        { name: "https", containerPort: 9443 },
        { name: "dns", containerPort: 53 },
      ],
    },
  ],
};
const containers = namedPortContainers(podSpec);

describe("resolvePort", () => {
  it("takes numbers as they are and names by name and protocol, first match wins", () => {
    expect(resolvePort(8443, containers)).toBe(8443);
    expect(resolvePort("https", containers)).toBe(8443);
    expect(resolvePort("metrics", containers)).toBe(9090);
    expect(resolvePort("dns", containers)).toBe(53);
    expect(resolvePort("dns", containers, "UDP")).toBe(5353);
    expect(resolvePort("https", containers, "UDP")).toBeUndefined();
  });

  it("looks in sidecars, not in init containers that end", () => {
    expect(resolvePort("proxy", containers)).toBe(15001);
    expect(resolvePort("setup", containers)).toBeUndefined();
  });

  it("is undefined for what names no port", () => {
    for (const port of ["nope", "8443", "", 0, 65536, 1.5, null, undefined, {}]) expect(resolvePort(port, containers), JSON.stringify(port)).toBeUndefined();
    expect(resolvePort("https", "not a list")).toBeUndefined();
    expect(resolvePort("https", [null, { ports: "x" }, { ports: [null, { name: "https", containerPort: "8443" }] }])).toBeUndefined();
    expect(namedPortContainers(null)).toEqual([]);
  });
});

describe("protocols and NetworkPolicy port ranges", () => {
  it("defaults the protocol to TCP", () => {
    expect(protocolOf({ port: 80 })).toBe("TCP");
    expect(protocolOf({ port: 80, protocol: "UDP" })).toBe("UDP");
    expect(protocolOf(null)).toBe("TCP");
  });

  it("reads port, endPort and named ports", () => {
    expect(policyPortRange({}, containers)).toEqual({ protocol: "TCP", from: 1, to: 65535 });
    expect(policyPortRange({ protocol: "UDP" }, containers)).toEqual({ protocol: "UDP", from: 1, to: 65535 });
    expect(policyPortRange({ port: "https" }, containers)).toEqual({ protocol: "TCP", from: 8443, to: 8443 });
    expect(policyPortRange({ port: 8000, endPort: 9000 }, containers)).toEqual({ protocol: "TCP", from: 8000, to: 9000 });
    expect(policyPortRange({ port: "dns", protocol: "UDP" }, containers)).toEqual({ protocol: "UDP", from: 5353, to: 5353 });
    expect(policyPortRange({ port: "nope" }, containers)).toBeUndefined();
  });
});
