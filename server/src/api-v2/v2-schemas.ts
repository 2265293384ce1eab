/** The TypeBox schemas that the /v2 routes (and the Monitor API V1, which answers with the same entries) share. */
import { Type } from '@fastify/type-provider-typebox';
import { FIELD_NAMES } from '../../../engine/index';

const Values = Type.Array(Type.String());

/** One entry of a /v2/search reply, as documented (the engine shapes the entries; a test holds the two together). */
export const ApiEntry = Type.Object({
  id: Type.String(),
  database_name: Type.String(),
  ...Object.fromEntries(FIELD_NAMES.map((field) => [field, Type.Optional(Values)])),
  raw_record: Type.Optional(
    Type.Object({ le_only: Type.Boolean(), unstructured: Type.String() }, { description: 'Law-enforcement accounts only.' }),
  ),
});
