import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HISTORY_MAX_PAGE, HISTORY_PAGE_SIZE, type BillingService } from './billing-service';
import { ErrorBody } from '../infra/errors';

const errors = { 400: ErrorBody, 401: ErrorBody, 429: ErrorBody };
const Success = Type.Object({ success: Type.Boolean() });
const security = [{ bearer: [] }];

/** Allow-list of what the invoice view shows. */
const Invoice = Type.Object({
  id: Type.String(),
  item_type: Type.String(),
  quantity: Type.Integer(),
  created: Type.String({ format: 'date-time' }),
  amount: Type.Number({ description: 'USD.' }),
  method: Type.String(),
  extra_info: Type.Optional(
    Type.Object(
      {
        name: Type.Optional(Type.String()),
        company: Type.Optional(Type.String()),
        phone: Type.Optional(Type.String()),
        address: Type.Optional(Type.String()),
        vat_id: Type.Optional(Type.String()),
      },
      { description: 'Only while the user keeps extra invoice data (extra_data).' },
    ),
  ),
});

/** The user's invoices: a page of them, and clearing them. */
export function registerPaymentHistoryRoutes(app: FastifyInstance, deps: { billing: BillingService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { billing } = deps;
  const common = { onRequest: [app.authenticate] };

  r.post(
    '/user/payment-history',
    {
      ...common,
      schema: {
        operationId: 'paymentHistory',
        tags: ['user'],
        security,
        summary: `The user's invoices, newest first, ${HISTORY_PAGE_SIZE} a page.`,
        body: Type.Object({ page: Type.Integer({ minimum: 1, maximum: HISTORY_MAX_PAGE }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ invoices: Type.Array(Invoice), total_results: Type.Integer(), extra_data: Type.Boolean() }),
          ...errors,
        },
      },
    },
    (request) => billing.history(request.user.sub, request.body.page),
  );

  r.post(
    '/user/clear-payment-history',
    {
      ...common,
      schema: {
        operationId: 'clearPaymentHistory',
        tags: ['user'],
        security,
        summary: "Deletes the user's invoices (their payments are kept).",
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await billing.clearHistory(request.user.sub);
      return { success: true };
    },
  );
}

const Details = Type.Object({
  name: Type.String({ maxLength: 200 }),
  company: Type.String({ maxLength: 200 }),
  address: Type.String({ maxLength: 500 }),
  vat_id: Type.String({ maxLength: 40 }),
});

/** The billing details printed on the next invoices. */
export function registerInvoiceDetailsRoutes(app: FastifyInstance, deps: { billing: BillingService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { billing } = deps;
  const common = { onRequest: [app.authenticate] };

  r.get(
    '/user/invoice-details',
    {
      ...common,
      schema: {
        operationId: 'invoiceDetails',
        tags: ['user'],
        security,
        summary: "The billing details printed on the user's next invoices while 'Save extra invoice details' is on ('' when not given).",
        response: { 200: Details, ...errors },
      },
    },
    (request) => billing.invoiceDetails(request.user.sub),
  );

  r.post(
    '/user/invoice-details',
    {
      ...common,
      schema: {
        operationId: 'setInvoiceDetails',
        tags: ['user'],
        security,
        summary: 'Saves the billing details (name, company, address, VAT ID; each optional) for the next invoices. Invoices already written keep theirs.',
        body: Type.Partial(Details, { additionalProperties: false }),
        response: { 200: Details, ...errors },
      },
    },
    (request) => billing.setInvoiceDetails(request.user.sub, request.body),
  );
}
