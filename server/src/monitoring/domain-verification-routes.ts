/**
 * Domain verification calls (docs/monitoring.md "Domain verification"): the dashboard's list, "check
 * now" and role-address mail (bearer session), and the mailed link's page: GET shows what
 * would be confirmed (a mail scanner following the link confirms nothing), POST confirms.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DOMAIN_ROLE_ADDRESSES } from '../common/monitoring-rules';
import type { DomainCheckResult, DomainVerification } from '../common/monitoring-wire';
import { DOMAIN_CONFIRM_PATH, type DomainVerificationService } from './domain-verification-service';
import { wireSchema } from './wire-schema';
import { escapeHtml, linkPage } from '../infra/link-page';
import { ErrorBody } from '../infra/errors';

const Verification = wireSchema<DomainVerification>()(
  Type.Object({
    domain: Type.String(),
    verified: Type.Boolean(),
    verified_by: Type.Union([Type.String(), Type.Null()], { description: 'The verified domain covering this one: itself or a parent.' }),
    method: Type.Union([Type.Literal('dns'), Type.Literal('file'), Type.Literal('email'), Type.Literal('operator'), Type.Null()]),
    verified_at: Type.Union([Type.String(), Type.Null()]),
    expires_at: Type.Union([Type.String(), Type.Null()], { description: 'Values are hidden again after it, until the domain is checked again.' }),
    txt_record: Type.String({ description: 'The whole text of the TXT record to add at the domain.' }),
    file_url: Type.String(),
    file_content: Type.String(),
    role_addresses: Type.Array(Type.String()),
    mail_sent_to: Type.Union([Type.String(), Type.Null()]),
  }),
);

const CheckResult = wireSchema<DomainCheckResult>()(Type.Object({ verified: Type.Boolean(), message: Type.String(), domain: Verification }));

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const DomainName = Type.String({ minLength: 1, maxLength: 256 });

const tags = ['monitoring'];
const security = [{ bearer: [] }];

export function registerDomainVerificationRoutes(app: FastifyInstance, deps: { verification: DomainVerificationService; brand: string }) {
  registerDashboardRoutes(app, deps.verification);
  registerMailLinkRoutes(app, deps);
}

/** The dashboard's list, "check now" and role-address mail (bearer session). */
function registerDashboardRoutes(app: FastifyInstance, verification: DomainVerificationService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };
  r.post(
    '/monitoring/domains/get',
    {
      ...common,
      schema: {
        operationId: 'monitoringGetDomainVerifications',
        tags,
        security,
        summary: "Verification state and instructions of each domain of the caller's domain tasks (a domain task shows values only once verified).",
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Object({ domains: Type.Array(Verification) }), ...errors },
      },
    },
    async (request) => ({ domains: await verification.list(request.user.sub) }),
  );

  r.post(
    '/monitoring/domains/check',
    {
      ...common,
      schema: {
        operationId: 'monitoringCheckDomain',
        tags,
        security,
        summary: 'Looks for the TXT record, then the .well-known file, now; throttled per account (429).',
        body: Type.Object({ domain: DomainName }, { additionalProperties: false }),
        response: { 200: CheckResult, ...errors },
      },
    },
    (request) => verification.check(request.user.sub, request.body.domain),
  );

  r.post(
    '/monitoring/domains/send-mail',
    {
      ...common,
      schema: {
        operationId: 'monitoringSendDomainMail',
        tags,
        security,
        summary: `Mails a confirmation link to a role address of the domain (${DOMAIN_ROLE_ADDRESSES.join(', ')}); throttled per account (429).`,
        body: Type.Object({ domain: DomainName, address: Type.String({ maxLength: 32 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ success: Type.Literal(true), domain: Verification }), ...errors },
      },
    },
    async (request) => ({ success: true as const, domain: await verification.sendMail(request.user.sub, request.body.domain, request.body.address) }),
  );
}

/** The mailed link: GET shows what would be confirmed, POST confirms. */
function registerMailLinkRoutes(app: FastifyInstance, deps: { verification: DomainVerificationService; brand: string }) {
  const { verification } = deps;
  const page = (reply: FastifyReply, status: number, body: string) => linkPage(reply, status, { brand: deps.brand, title: 'domain verification', body });
  const invalid = (reply: FastifyReply) => page(reply, 400, '<p>This confirmation link is not valid: it was used already, it expired, or a newer one was sent.</p>');
  const querySchema = { type: 'object', properties: { t: { type: 'string', maxLength: 100 } }, additionalProperties: true } as const;

  app.get<{ Querystring: { t?: string } }>(
    DOMAIN_CONFIRM_PATH,
    { schema: { operationId: 'domainVerificationPage', tags, summary: 'Confirmation page of a domain verification link', querystring: querySchema } },
    async (request, reply) => {
      const link = request.query.t ? await verification.peekMailLink(request.query.t) : undefined;
      if (!link) return invalid(reply);
      const action = `${DOMAIN_CONFIRM_PATH}?t=${encodeURIComponent(request.query.t ?? '')}`;
      return page(
        reply,
        200,
        `<p>Confirm that the ${escapeHtml(deps.brand)} account that asked may monitor breached records of <strong>${escapeHtml(link.domain)}</strong>?</p>` +
          `<p>This link was sent to ${escapeHtml(link.address)}. Do not confirm unless you manage this domain and know who asked.</p>` +
          `<form method="post" action="${escapeHtml(action)}"><button type="submit">Confirm ${escapeHtml(link.domain)}</button></form>`,
      );
    },
  );

  app.register(async (scope) => {
    // The page's form posts form-encoded; the body carries nothing we need.
    scope.addContentTypeParser(['application/x-www-form-urlencoded'], { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => done(null, body));
    scope.post<{ Querystring: { t?: string } }>(
      DOMAIN_CONFIRM_PATH,
      { schema: { operationId: 'domainVerificationConfirm', tags, summary: 'Confirms a domain verification link (single use)', querystring: querySchema } },
      async (request, reply) => {
        const confirmed = request.query.t ? await verification.confirmMailLink(request.query.t) : undefined;
        if (!confirmed) return invalid(reply);
        return page(reply, 200, `<p>${escapeHtml(confirmed.domain)} is verified. The account that asked now sees the values of its reports for this domain.</p>`);
      },
    );
  });
}
