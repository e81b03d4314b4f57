// The Compass Runner example, the upstream tool's own example file, a variant maker and a CA certificate, for the Compass Runner values tests of this folder.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument, type Document } from "yaml";
import { ROOT } from "../../support/cli.ts";

export const EXAMPLE = readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8");
/** The upstream runner-manifests tool's own values.example.json, tabs and all, without kind. */
export const UPSTREAM_FILE = join(ROOT, "test/fixtures/upstream/values.example.json");
export const UPSTREAM = readFileSync(UPSTREAM_FILE, "utf8");

/** `base` (the example by default) with `edit` applied to its YAML document. */
export function variant(edit: (doc: Document) => void, base = EXAMPLE): string {
  const doc = parseDocument(base);
  edit(doc);
  return doc.toString();
}

/** A self-signed CA certificate, as a Server CA bundle holds one. */
export const PEM = `-----BEGIN CERTIFICATE-----
MIIBjzCCATWgAwIBAgIUSIFTIe8qoc+iSKKSMdtuCzwJTSowCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSQ29tcGFzcyBFeGFtcGxlIENBMB4XDTI2MTEyOTE5MTMyM1oX
DTM2MTEyNjE5MTMyM1owHTEbMBkGA1UEAwwSQ29tcGFzcyBFeGFtcGxlIENBMFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEZkYaenvjHyGkbzmKlAFl9+umplE6PkEH
EsI06bDN4wcs1pP13GSYp1Byo8lkfNxBayrFQ/IRIWf10iis8RmRC6NTMFEwHQYD
VR0OBBYEFBn4JMPcWP6+l95L1RCw5vjWNqW0MB8GA1UdIwQYMBaAFBn4JMPcWP6+
l95L1RCw5vjWNqW0MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIh
AI1/CimNvsvEAZl0x2E7Q7DHueAg3vjeh14NDS8TEttyAiBpF/ngmREPQuRHrpyH
HEDRHFfhh3uCPHeI8SWZG9Lugg==
-----END CERTIFICATE-----
`;
