/** What other features may use of breach-api-docs (the rest is the feature's own). */
export { BREACH_API_TITLE, BreachApiDocsPage } from './components/breach-api-docs-page';
