import type { WhoisAnswer, WhoisTool } from '@common/whois-rules';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * True when an answer has the frame its tool's view reads (a lookup that
 * returns nothing usable is 'Issue with search'). The values inside stay hostile text.
 */
export function isWellFormed(tool: WhoisTool, data: unknown): data is WhoisAnswer {
  if (!isObject(data)) return false;
  switch (tool) {
    case 'whois':
      return typeof data.domainName === 'string';
    case 'whois_history':
      return Array.isArray(data.records);
    case 'reverse_whois':
      return Array.isArray(data.domainsList);
    case 'subdomain_scan':
      return isObject(data.result) && Array.isArray(data.result.records) && data.result.records.every(isObject);
    default:
      return Array.isArray(data.result) && data.result.every(isObject);
  }
}
