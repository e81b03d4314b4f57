// Kubernetes name and label syntax, as the API server checks it
// (apimachinery validation: DNS-1123 labels and subdomains, qualified names).
import { z } from "zod";
import { req } from "./values.ts";

export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function isLabelKey(key: string): boolean {
  const slash = key.indexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) return false;
  return name.length <= 63 && QUALIFIED_NAME.test(name);
}

export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** A namespace or other DNS-1123 label name, under requirement `id`. */
export const dnsLabel = (id: string, what: string) =>
  z
    .string()
    .max(63, req(id, `${what} is a DNS-1123 label of at most 63 characters`))
    .regex(DNS1123_LABEL, req(id, `${what} is a DNS-1123 label: lowercase letters, digits and '-'`, "is not a DNS-1123 label"));

/** A ServiceAccount or other DNS-1123 subdomain name. */
export const dnsSubdomain = (id: string, what: string) =>
  z
    .string()
    .max(253, req(id, `${what} is a DNS-1123 subdomain of at most 253 characters`))
    .regex(DNS1123_SUBDOMAIN, req(id, `${what} is a DNS-1123 subdomain: lowercase letters, digits, '-' and '.'`, "is not a DNS-1123 subdomain"));

/** A DNS host name (for TLS server names), not an IP and not a URL. */
export const hostName = (id: string, what: string) =>
  z
    .string()
    .max(253, req(id, `${what} is a DNS name of at most 253 characters`))
    .regex(DNS1123_SUBDOMAIN, req(id, `${what} is a lowercase DNS name such as compass.example.com, without a scheme or port`, "is not a DNS name"));
