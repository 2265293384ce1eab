/** What other features may use of api-docs (the rest is the feature's own). */
export { fullApiKey } from './api/api-key-api';
export { useApiKeyCheck } from './api/use-api-key-check';
export { ApiChecklist } from './components/api-checklist';
export { ApiKeyControl } from './components/api-key-control';
export { CodeBlock, CodeTabs } from './components/code-tabs';
