/**
 * The usage text of `npm run whois-ingest`, apart from the command: `--help` prints it
 * without loading the ingest's modules (scripts/lib/whois-ingest-launch.ts).
 */
export const USAGE = `usage: npm run whois-ingest -- --format FORMAT [--source NAME] [--observed-at ISO]
       [--report FILE] [--dry-run] FILE...
       npm run whois-ingest -- --samples
formats:
  pdns          passive DNS common output format, NDJSON (rrname, rrtype, rdata, time_first, time_last, count)
  rdap          one RFC 9083 domain object per line
  zone          RFC 1035 zone file; import consecutive files of a zone in order, each with its --observed-at
  whoisxml-csv  WhoisXML API's CSV database download (a header row, then one domain a row)
  crtsh         crt.sh JSON output (?output=json)
  subfinder     subfinder -oJ JSONL ({host, source, input}), or one host per line
FILE: a path, or - for standard input; gzip is recognised by its magic bytes.
--source NAME       kept with the rows (default: the format)
--observed-at ISO   time of records that carry none (zone, subfinder; default: the file's
                    modification time, now for standard input); rdap, whoisxml-csv, crtsh and pdns
                    records keep their own times
--report FILE       every bad line (file:line: reason: text) is appended to FILE; the summary
                    shows the first ones
--dry-run           read, check and merge, then roll back
A file already imported (same sha256, standard input included) is skipped: importing it
again changes nothing. Lines longer than 1 MiB are bad lines.`;
