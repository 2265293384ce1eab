/**
 * The admin CLI's usage text, every command's lines (those of scripts/admin/*.ts too), kept
 * apart from the commands: `npm run admin -- --help` prints it without loading their modules
 * (scripts/admin/launch.ts). scripts/test/admin-usage.test.ts holds every command to having
 * its lines here.
 */
export const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  user:create --email E --password P [grant options] [--api-key] [--json]
      Creates an account (add --verified to skip email verification).
  user:grant --email E [grant options] [--api-key] [--json]
      Adds to an existing account.
  outbox [--to E] [--limit N]
      Lists stored mails and their links (the mailbox of the embedded default).
  payment:simulate --invoice ID [--status settled|partial|overpaid|expired] [--currency btc|ltc|xmr|bch|eth]
      With CRYPTO_PROVIDER=sandbox: what the blockchain would report for crypto invoice ID
      (default settled, paid in btc). The event goes through the webhook ingress; the
      server's workers apply it (now, or when the server next starts). --namespace NS: the
      server's queue namespace (default leakwell; tests).
  event-code:create --code CODE --grant SKU:QTY [--grant SKU:QTY ...] [--uses N] [--expires YYYY-MM-DD] [--json]
      Creates an event code (4 to 64 of A-Z a-z 0-9 _ -, matched case-insensitively) that
      grants catalogue products: search-credits, whois-credits or a *-nonsub-* plan. --uses:
      how many accounts may redeem it (default 1); --expires: usable through that day (UTC).
      --json prints {code, grants, max_uses, expires_at}.

  product:set --sku SKU --price USD
      Sets a product's price per unit in USD (e.g. 15.49; credits 0.05): the next checkouts
      are priced with it (a Paddle price must be changed in Paddle too).
  payment:renew --subscription ID [--namespace NS]
      With CARD_PROVIDER=sandbox: the provider charges a renewal of sandbox subscription ID
      (payments.provider_subscription_id, sandbox-sub-…): a signed transaction.completed
      (origin subscription_recurring) goes through the webhook ingress.
  payment:refund --payment ID [--namespace NS]
      With CARD_PROVIDER=sandbox: an approved full refund (adjustment.created) of paid
      sandbox payment ID; credits are taken back (never below zero), access ends.
  banner:set --message TEXT
      Shows TEXT as the marketing banner on every dashboard page and prints its id (a new
      id: visitors who dismissed the previous banner see this one). Markup: b, strong, i,
      em, u, br, p, span and a href="http(s)://…"; anything else is refused.
  banner:clear
      Removes the banner.
  notify:global --message TEXT
      Posts TEXT (plain text) as a notice in the inbox of every open account (one row each:
      seen and delete are per user; accounts opened later do not get it). Prints how many.
  domain:verify --email E --domain D
      Marks domain D verified for account E (the operator's override of the DNS, file or
      mail proof): its domain tasks, D's subdomains included, show record values for a
      year, as after any verification.

  well:list [--json] [--index-dir DIR]
      Every data well: name, records, date, description, sensitive flag, when it was first
      ingested and its index bytes (its share of each segment holding its records).
  well:update --well NAME [--description T] [--date YYYY-MM-DD] [--sensitive|--no-sensitive] [--rename NEW] [--reason T]
      Corrects a well's catalogue entry; seen at once by every server. --rename also renames
      its records' database_name in search results (every server within a second).
  well:delete --well NAME [--reason T] [--purge]
      Takes a well down: its records leave every search, export, count, password check and
      monitoring match on every server within a second, and its catalogue entry goes. Its
      bytes are reclaimed by the next merge, or now with --purge (rewrites the segments
      holding them).
  backup --out DIR [--json]
      Writes a consistent snapshot of the database and the search index into DIR (new or
      empty) while the server keeps serving: the database copied in one transaction, the
      index's immutable segments hard-linked (copied across file systems). DIR/backup.json
      (written last) lists versions and counts. Keep DIR on the same file system as the
      index for a cheap snapshot; copy it elsewhere for safety.
  restore --from DIR [--json]
      Restores backup DIR into an empty target: an empty DATA_DIR (embedded default), or an
      empty DATABASE_URL database and an empty INDEX_DIR; refuses a target holding anything.
      The server must not run on the target. Prints the restored counts.
  user:list [--query TEXT] [--json]
      Lists accounts, newest first (closed ones too): email, created, verified, plan,
      credits, flags (suspended, law-enforcement, search-barred, closed) and last sign-in.
      --query keeps those whose email contains TEXT. --json prints a JSON array.
  user:suspend --email E --reason TEXT
      Suspends account E: sign-in is refused (the message names support), its sessions end,
      its API key stops on /v2 and the Monitor API, its monitoring pauses (no matching, no
      alerts). Nothing is deleted; user:unsuspend undoes it.
  user:unsuspend --email E [--reason TEXT]
      Lifts the suspension of account E: sign-in, the API key and monitoring work again.
  user:set-le --email E --reference TEXT
      Gives account E law-enforcement status (raw records), resting on the verification
      whose reference is TEXT (the know-your-customer file kept outside the product).
  user:unset-le --email E [--reason TEXT]
      Ends the law-enforcement status of account E (its reference stays in the audit log).
  audit:list [--since YYYY-MM-DD|ISO] [--limit N] [--json]
      The audit log, oldest first: when, who (--operator or the OS user), what (the
      command), on what, why and the details of every operator command that changed
      something. --since keeps entries from that day (UTC) or time; --limit the first N
      (default all). --json prints a JSON array.
  user:reset-2fa --email E [--reason T]
      Turns two-factor sign-in off for an account (TOTP, recovery codes and passkeys) after
      support has confirmed the owner; recorded in the audit log and in the owner's notices.
  index:upgrade [--index-dir DIR] [--json]
      Rewrites every segment of the index written in an older format in the engine's
      current one (each alone, published like a merge: safe while the server serves the
      index) and prints each one's old and new format and records; a second run does
      nothing and says so. An index holding a segment too old for this engine is refused
      before anything is rewritten, with what to do.

Every command also takes --operator NAME: who runs it, for the audit log (default: the OS user).

Grant options:
  --verified            mark the email verified
  --search-days N       extend the search subscription by N days
  --search-credits N    add N search (API) credits (a credit_ledger row, reason admin-grant)
  --whois-credits N     add N WHOIS credits
  --enterprise          enterprise plan
  --elevated            elevated (always active)
  --le                  refused: law-enforcement status needs the reference of its
                        verification, see user:set-le
  --api-key             generate a new API key and print it (shown once)
  --json                print {id, email[, api_key]} as JSON
`;

/** Whether the arguments ask for the usage text (none: usage, exit code 2). */
export function asksForUsage(argv: string[]): boolean {
  const [command] = argv;
  return !command || command === 'help' || command === '--help';
}
