/** The answer of the well charts (the search screen's exposure timeline, monitoring's domain overview): well-exposure-service.ts. */
import { Type } from '@fastify/type-provider-typebox';

const ExposedWell = Type.Object({
  name: Type.String(),
  date: Type.Union([Type.String({ description: 'The breach date, YYYY-MM-DD.' }), Type.Null()]),
  records: Type.Integer({ description: 'Records of the well matching the search.' }),
  data_types: Type.Array(Type.String(), { description: 'The kinds of data the well exposes ("Email", "Password", "Hashed password", ...).' }),
});

/** The wells of a chart: dated ones oldest first, undated ones apart (most records first). */
export const WellExposureBody = Type.Object({
  total: Type.Integer({ description: 'Matching records in every well (no dedup).' }),
  wells: Type.Array(ExposedWell),
  undated: Type.Array(ExposedWell, { description: 'Wells without a breach date.' }),
});
