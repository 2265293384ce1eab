/** What other features may use of docs (the rest is the feature's own). */
export { HelpLayout, HelpSection } from './components/help-layout';
export type { TocEntry } from './components/help-layout';
