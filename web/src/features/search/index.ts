/** What other features may use of search (the rest is the feature's own). */
export type { SearchRecord } from './api/search-api';
export { downloadCsv, toCsv } from './lib/csv';
export { displayedFields, fieldLabel, isMaskedEmail, rawRecordText, valueText } from './lib/record-fields';
export type { ExposedWell, WellExposure } from './api/timeline-api';
export { drawWellTimeline } from './lib/well-timeline';
