/** The TypeBox schemas of search answers, shared by the dashboard's search and the reports that embed its records. */
import { Type } from '@fastify/type-provider-typebox';
import { FIELD_NAMES } from '../../../engine/index';

const Values = Type.Array(Type.String());

export const SearchRecord = Type.Object({
  id: Type.String(),
  primary_field: Type.String(),
  database_name: Type.String(),
  ...Object.fromEntries(FIELD_NAMES.map((field) => [field, Type.Optional(Values)])),
  raw_record: Type.Optional(Type.String({ description: 'Law-enforcement accounts only.' })),
});
