/**
 * The IANA RDAP bootstrap the live provider reads (live/rdap-bootstrap.json), as
 * `npm run whois-bootstrap` refreshes it (scripts/whois-bootstrap.ts): the check a fetched
 * file must pass before it replaces the shipped one.
 */
export { checkBootstrap, type RdapBootstrap } from './live/bootstrap';
