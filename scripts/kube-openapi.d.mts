// Types of kube-openapi.mjs for the tests that run it.
export const OPENAPI_SUM: string;
export function openApiPins(file?: string): Map<string, { tag: string; sum: string }>;
export function readOpenApiVersion(
  version: string,
  pin: { tag: string; sum?: string },
  options: { checkedFormats: Set<string>; enumOf: (model: string, field: string) => string[] | undefined; specDir?: string },
): {
  spec: string;
  client: string;
  kinds: Record<string, Record<string, string>>;
  types: Record<string, { f: Record<string, string>; r?: string[]; x?: Record<string, string>; e?: Record<string, string[]> }>;
};
