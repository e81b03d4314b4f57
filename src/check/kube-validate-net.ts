// What kube-apiserver refuses in Services and NetworkPolicies beyond the OpenAPI schema
// (k8s.io/kubernetes/pkg/apis/core/validation/validation.go validateService,
// pkg/apis/networking/validation/validation.go ValidateNetworkPolicySpec). The node port range and
// the service CIDR are the cluster's configuration, and not judged here.
import type { Cidr } from "../k8s/cidr.ts";
import {
  is4In6,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidCIDRForLegacyField,
  isValidIPForLegacyField,
  isValidPortName,
  isValidPortNum,
  parseCIDRSloppy,
  parseIPSloppy,
  validateEndpointIP,
} from "../k8s/validation.ts";
import { PORT_NAME_RULE } from "./kube-validate-container.ts";
import { atLeast, type Ctx, checkLabelSelector, checkLabels, int, isRecord, list, type Path, RULES, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];

/** Go's strings.TrimSpace: Unicode white space, which is not JavaScript's trim (U+0085 in, U+FEFF out). */
function goTrimSpace(s: string): string {
  const space = (c: number) =>
    (c >= 9 && c <= 13) ||
    c === 32 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    [0x2028, 0x2029, 0x202f, 0x205f, 0x3000].includes(c);
  let start = 0;
  let end = s.length;
  while (start < end && space(s.charCodeAt(start))) start++;
  while (end > start && space(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/** StrictIPCIDRValidation (beta, on from 1.36) makes the legacy IP and CIDR fields refuse leading zeros, IPv4-mapped IPv6 and, for CIDRs, host bits. */
const strictIPs = (ctx: Ctx) => atLeast(ctx, 36);
const ipRule = (ctx: Ctx) => (strictIPs(ctx) ? "an IP address without leading zeros, not IPv4-mapped IPv6" : "an IP address");
const cidrRule = (ctx: Ctx) =>
  strictIPs(ctx)
    ? "a CIDR such as 10.0.0.0/8 or 2001:db8::/64, without host bits set, leading zeros or IPv4-mapped IPv6"
    : "a CIDR such as 10.0.0.0/8 or 2001:db8::/64";

function checkCidr(value: string, path: Path, ctx: Ctx): boolean {
  if (isValidCIDRForLegacyField(value, strictIPs(ctx)).length === 0) return true;
  report(ctx, path, `${show(value)} is not a valid CIDR: Kubernetes ${ctx.minor === undefined ? "" : `1.${ctx.minor} `}accepts ${cidrRule(ctx)}`);
  return false;
}

/** validateServicePort after SetDefaults_Service (protocol TCP, targetPort the port when 0 or ""). */
function checkServicePorts(spec: Obj, ctx: Ctx): void {
  const ports = list(spec.ports);
  const names = new Set<string>();
  const seen = new Set<string>();
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    if (!isRecord(port)) return;
    const at = ["spec", "ports", i];
    const name = str(port.name) ?? "";
    if (name === "" && ports.length > 1) report(ctx, [...at, "name"], "a Service with more than one port needs a name on each");
    else if (name !== "") {
      if (isDNS1123Label(name).length > 0) report(ctx, [...at, "name"], `${show(name)} is not a valid Service port name: ${RULES.label}`);
      if (names.has(name)) report(ctx, [...at, "name"], `port name ${show(name)} is used twice: Service port names must be unique`);
      names.add(name);
    }
    const number = int(port.port);
    if (number !== undefined && isValidPortNum(number).length > 0)
      report(ctx, [...at, "port"], `port ${number} is out of range: Kubernetes accepts 1 to 65535`);
    const protocol = str(port.protocol) || "TCP";
    if (!PROTOCOLS.includes(protocol)) report(ctx, [...at, "protocol"], `${show(protocol)} is not a port protocol: use TCP, UDP or SCTP`);
    const target = port.targetPort === 0 || port.targetPort === "" ? undefined : port.targetPort;
    if (typeof target === "number" && isValidPortNum(target).length > 0)
      report(ctx, [...at, "targetPort"], `targetPort ${target} is out of range: Kubernetes accepts 1 to 65535, or a container port's name`);
    if (typeof target === "string" && isValidPortName(target).length > 0)
      report(ctx, [...at, "targetPort"], `${show(target)} is not a valid targetPort: a number from 1 to 65535 (unquoted), or ${PORT_NAME_RULE}`);
    const appProtocol = str(port.appProtocol);
    if (appProtocol !== undefined && isQualifiedName(appProtocol).length > 0)
      report(ctx, [...at, "appProtocol"], `${show(appProtocol)} is not a valid appProtocol: ${RULES.qualified}`);
    const nodePort = int(port.nodePort) ?? 0;
    if (nodePort !== 0 && (str(spec.type) || "ClusterIP") === "ClusterIP") report(ctx, [...at, "nodePort"], "a ClusterIP Service cannot set nodePort");
    if (nodePort !== 0 && nodePorts.has(`${protocol}/${nodePort}`))
      report(ctx, [...at, "nodePort"], `nodePort ${protocol}/${nodePort} is used twice in this Service`);
    if (nodePort !== 0) nodePorts.add(`${protocol}/${nodePort}`);
    if (number !== undefined && seen.has(`${protocol}/${number}`)) report(ctx, at, `port ${protocol}/${number} is used twice in this Service`);
    if (number !== undefined) seen.add(`${protocol}/${number}`);
  });
}

const isIPv6 = (ip: string) => {
  const parsed = parseIPSloppy(ip);
  return parsed !== undefined && parsed.family === 6 && !is4In6(parsed);
};

/** ValidateServiceClusterIPsRelatedFields, on clusterIPs as normalizeClusterIPs fills them from clusterIP. */
function checkClusterIPs(spec: Obj, clusterIPs: unknown[], ctx: Ctx): void {
  const clusterIP = str(spec.clusterIP) ?? "";
  if (clusterIP !== "" && clusterIPs[0] !== clusterIP) report(ctx, ["spec", "clusterIPs"], "clusterIPs[0] must be the same as clusterIP");
  if (clusterIP === "" && clusterIPs.length > 0) report(ctx, ["spec", "clusterIPs"], "clusterIPs must be empty when clusterIP is not set");
  const families = list(spec.ipFamilies);
  families.forEach((family, i) => {
    if (typeof family === "string" && family !== "IPv4" && family !== "IPv6")
      report(ctx, ["spec", "ipFamilies", i], `${show(family)} is not an IP family: use IPv4 or IPv6`);
    else if (families.indexOf(family) < i) report(ctx, ["spec", "ipFamilies", i], `IP family ${show(family)} is listed twice`);
  });
  const policy = str(spec.ipFamilyPolicy);
  if (policy !== undefined && !["SingleStack", "PreferDualStack", "RequireDualStack"].includes(policy))
    report(ctx, ["spec", "ipFamilyPolicy"], `${show(policy)} is not an IP family policy: use SingleStack, PreferDualStack or RequireDualStack`);
  let invalid = false;
  clusterIPs.forEach((ip, i) => {
    if (typeof ip !== "string") return;
    if (i === 0 && ip === "None") {
      if (clusterIPs.length > 1) {
        report(ctx, ["spec", "clusterIPs"], `"None" must be the first and only clusterIP`);
        invalid = true;
      }
      return;
    }
    if (isValidIPForLegacyField(ip, strictIPs(ctx)).length === 0) return;
    const at = i === 0 && clusterIP !== "" ? ["spec", "clusterIP"] : ["spec", "clusterIPs", i];
    report(ctx, at, `${show(ip)} is not a valid cluster IP: "None" or ${ipRule(ctx)}`);
    invalid = true;
  });
  if (clusterIPs.length > 2) report(ctx, ["spec", "clusterIPs"], "clusterIPs holds at most 2 addresses, one of each family");
  if (invalid) return;
  const strings = clusterIPs.filter((ip): ip is string => typeof ip === "string");
  // netutils.IsDualStackIPStrings: more than one address needs both families.
  const v6 = strings.filter(isIPv6).length;
  if (strings.length > 1 && (v6 === 0 || v6 === strings.length)) report(ctx, ["spec", "clusterIPs"], "two clusterIPs must be one IPv4 and one IPv6 address");
  if (strings[0] === "None") return;
  strings.forEach((ip, i) => {
    const family = families[i];
    if ((family === "IPv4" && isIPv6(ip)) || (family === "IPv6" && !isIPv6(ip)))
      report(ctx, ["spec", "clusterIPs", i], `${show(ip)} is not an ${family} address, as ipFamilies[${i}] says`);
  });
}

/** The ExternalName type: no cluster IPs or families, and a DNS name (a trailing dot allowed) in externalName. */
function checkExternalName(spec: Obj, clusterIPs: unknown[], ctx: Ctx): void {
  if (clusterIPs.length > 0) report(ctx, ["spec", "clusterIP"], "an ExternalName Service cannot set clusterIP or clusterIPs");
  if (list(spec.ipFamilies).length > 0) report(ctx, ["spec", "ipFamilies"], "an ExternalName Service cannot set ipFamilies");
  if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null)
    report(ctx, ["spec", "ipFamilyPolicy"], "an ExternalName Service cannot set ipFamilyPolicy");
  // A missing externalName is an empty one; one of the wrong type is the schema walk's.
  if (spec.externalName !== undefined && spec.externalName !== null && typeof spec.externalName !== "string") return;
  const externalName = str(spec.externalName) ?? "";
  const cname = externalName.endsWith(".") ? externalName.slice(0, -1) : externalName;
  if (cname === "") report(ctx, ["spec", "externalName"], "an ExternalName Service needs externalName, a DNS name");
  else if (isDNS1123Subdomain(cname).length > 0)
    report(ctx, ["spec", "externalName"], `${show(externalName)} is not a valid externalName: ${RULES.subdomain}, with an optional trailing '.'`);
}

/** loadBalancerSourceRanges (or its annotation): LoadBalancer only, each a CIDR once trimmed. */
function checkSourceRanges(object: Obj, spec: Obj, type: string, ctx: Ctx): void {
  const ranges = list(spec.loadBalancerSourceRanges);
  const annotations = isRecord(object.metadata) && isRecord(object.metadata.annotations) ? object.metadata.annotations : {};
  const key = "service.beta.kubernetes.io/load-balancer-source-ranges";
  if (ranges.length > 0) {
    if (type !== "LoadBalancer") report(ctx, ["spec", "loadBalancerSourceRanges"], "loadBalancerSourceRanges can be set only on a LoadBalancer Service");
    ranges.forEach((value, i) => {
      if (typeof value === "string") checkCidr(goTrimSpace(value), ["spec", "loadBalancerSourceRanges", i], ctx);
    });
  } else if (Object.hasOwn(annotations, key) && typeof annotations[key] === "string") {
    const path = ["metadata", "annotations", key];
    if (type !== "LoadBalancer") report(ctx, path, "this annotation can be set only on a LoadBalancer Service");
    const value = goTrimSpace(annotations[key] as string);
    if (value !== "") for (const cidr of value.split(",")) checkCidr(goTrimSpace(cidr), path, ctx);
  }
}

/** ValidateServiceCreate beyond the name: validateService after SetDefaults_Service (type ClusterIP, sessionAffinity None). */
export function checkService(object: Obj, ctx: Ctx): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const type = str(spec.type) || "ClusterIP";
  if (!SERVICE_TYPES.includes(type)) report(ctx, ["spec", "type"], `${show(type)} is not a Service type: use ${SERVICE_TYPES.join(", ")}`);
  const clusterIP = str(spec.clusterIP) ?? "";
  const clusterIPs = list(spec.clusterIPs).length === 0 && clusterIP !== "" ? [clusterIP] : list(spec.clusterIPs);
  const headless = clusterIPs.length === 1 && clusterIPs[0] === "None";
  if (list(spec.ports).length === 0 && !headless && type !== "ExternalName")
    report(ctx, ["spec", "ports"], `a ${type} Service needs at least one port (only a headless one, clusterIP None, may have none)`);
  if (headless && (type === "LoadBalancer" || type === "NodePort")) report(ctx, ["spec", "clusterIP"], `a ${type} Service cannot be headless (clusterIP None)`);
  if (type === "ExternalName") checkExternalName(spec, clusterIPs, ctx);
  else checkClusterIPs(spec, clusterIPs, ctx);
  checkServicePorts(spec, ctx);
  checkLabels(spec.selector, ["spec", "selector"], ctx, "selector label");
  const affinity = str(spec.sessionAffinity) || "None";
  if (affinity !== "None" && affinity !== "ClientIP")
    report(ctx, ["spec", "sessionAffinity"], `${show(affinity)} is not a session affinity: use None or ClientIP`);
  const timeoutPath = ["spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds"];
  const config = spec.sessionAffinityConfig;
  const timeout = isRecord(config) && isRecord(config.clientIP) ? int(config.clientIP.timeoutSeconds) : undefined;
  if (affinity === "ClientIP" && timeout !== undefined && (timeout <= 0 || timeout > 86400))
    report(ctx, timeoutPath, `timeoutSeconds ${timeout} is out of range: Kubernetes accepts 1 to 86400`);
  list(spec.externalIPs).forEach((ip, i) => {
    if (typeof ip !== "string") return;
    const problems = isValidIPForLegacyField(ip, strictIPs(ctx)).length > 0 ? [`is not ${ipRule(ctx)}`] : validateEndpointIP(ip);
    if (problems.length > 0) report(ctx, ["spec", "externalIPs", i], `${show(ip)} ${problems.join("; ")}`);
  });
  checkSourceRanges(object, spec, type, ctx);
  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null && type !== "LoadBalancer")
    report(ctx, ["spec", "allocateLoadBalancerNodePorts"], "allocateLoadBalancerNodePorts can be set only on a LoadBalancer Service");
}

/** ValidateNetworkPolicyPort: protocol, a port number or IANA name, and endPort only after a numeric port, not below it. */
function checkPolicyPort(port: Obj, path: Path, ctx: Ctx): void {
  const protocol = str(port.protocol);
  if (protocol !== undefined && !PROTOCOLS.includes(protocol))
    report(ctx, [...path, "protocol"], `${show(protocol)} is not a port protocol: use TCP, UDP or SCTP`);
  const value = port.port;
  const endPort = int(port.endPort);
  if (typeof value === "number") {
    if (isValidPortNum(value).length > 0) report(ctx, [...path, "port"], `port ${value} is out of range: Kubernetes accepts 1 to 65535`);
    if (endPort !== undefined && endPort < value) report(ctx, [...path, "endPort"], `endPort ${endPort} must not be below port ${value}`);
    if (endPort !== undefined && isValidPortNum(endPort).length > 0)
      report(ctx, [...path, "endPort"], `endPort ${endPort} is out of range: Kubernetes accepts 1 to 65535`);
  } else if (typeof value === "string") {
    if (endPort !== undefined) report(ctx, [...path, "endPort"], "endPort needs a numeric port, not a named one");
    if (isValidPortName(value).length > 0)
      report(ctx, [...path, "port"], `${show(value)} is not a valid port: a number from 1 to 65535 (unquoted), or ${PORT_NAME_RULE}`);
  } else if (endPort !== undefined) report(ctx, [...path, "endPort"], "endPort needs a port");
}

/** The range net.IPNet.Contains compares in: an IPv4 or IPv4-mapped network is IPv4 (net.IP.To4). */
function asGoNet(c: Cidr): { v4: boolean; addr: bigint; mask: bigint } {
  const mapped = c.family === 6 && is4In6({ family: 6, value: c.first });
  const width = c.family === 4 || mapped ? 32n : 128n;
  const ones = BigInt(c.prefix - (mapped ? 96 : 0));
  const mask = ((1n << ones) - 1n) << (width - ones);
  return { v4: c.family === 4 || mapped, addr: mapped ? c.first & 0xffffffffn : c.first, mask };
}

/** ValidateIPBlock: cidr and each except a CIDR, each except strictly inside cidr (net.IPNet.Contains and a longer prefix). */
function checkIPBlock(block: Obj, path: Path, ctx: Ctx): void {
  const cidr = str(block.cidr);
  if (cidr === undefined) return;
  if (cidr === "") {
    report(ctx, [...path, "cidr"], `an ipBlock needs a cidr: ${cidrRule(ctx)}`);
    return;
  }
  checkCidr(cidr, [...path, "cidr"], ctx);
  const outer = parseCIDRSloppy(cidr);
  if (outer === undefined) return;
  const net = asGoNet(outer);
  list(block.except).forEach((except, i) => {
    if (typeof except !== "string") return;
    checkCidr(except, [...path, "except", i], ctx);
    const inner = parseCIDRSloppy(except);
    if (inner === undefined) return;
    const ip = asGoNet(inner);
    const contains = ip.v4 === net.v4 && (ip.addr & net.mask) === (net.addr & net.mask);
    if (!contains || outer.prefix >= inner.prefix)
      report(ctx, [...path, "except", i], `except ${show(except)} must be a range strictly inside cidr ${show(cidr)}`);
  });
}

/** ValidateNetworkPolicyPeer: exactly one kind of peer when ipBlock is used, at least one always. */
function checkPeer(peer: Obj, path: Path, ctx: Ctx): void {
  const has = (k: string) => peer[k] !== undefined && peer[k] !== null;
  if (has("podSelector")) checkLabelSelector(peer.podSelector, [...path, "podSelector"], ctx);
  if (has("namespaceSelector")) checkLabelSelector(peer.namespaceSelector, [...path, "namespaceSelector"], ctx);
  if (isRecord(peer.ipBlock)) checkIPBlock(peer.ipBlock, [...path, "ipBlock"], ctx);
  const count = ["podSelector", "namespaceSelector", "ipBlock"].filter(has).length;
  if (count === 0) report(ctx, path, "a peer needs podSelector, namespaceSelector or ipBlock");
  else if (count > 1 && has("ipBlock")) report(ctx, path, "a peer with ipBlock cannot also set podSelector or namespaceSelector");
}

/** ValidateNetworkPolicySpec. */
export function checkNetworkPolicy(object: Obj, ctx: Ctx): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  checkLabelSelector(spec.podSelector, ["spec", "podSelector"], ctx);
  for (const [direction, peers] of [
    ["ingress", "from"],
    ["egress", "to"],
  ]) {
    list(spec[direction]).forEach((rule, i) => {
      if (!isRecord(rule)) return;
      const at = ["spec", direction, i];
      list(rule.ports).forEach((port, j) => {
        if (isRecord(port)) checkPolicyPort(port, [...at, "ports", j], ctx);
      });
      list(rule[peers]).forEach((peer, j) => {
        if (isRecord(peer)) checkPeer(peer, [...at, peers, j], ctx);
      });
    });
  }
  const types = list(spec.policyTypes);
  if (types.length > 2) report(ctx, ["spec", "policyTypes"], "policyTypes holds at most two entries: Ingress and Egress");
  else
    types.forEach((type, i) => {
      if (typeof type === "string" && type !== "Ingress" && type !== "Egress")
        report(ctx, ["spec", "policyTypes", i], `${show(type)} is not a policy type: use Ingress or Egress`);
    });
}
