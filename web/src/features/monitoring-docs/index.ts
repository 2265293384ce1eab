/** What other features may use of monitoring-docs (the rest is the feature's own). */
export { CallDoc } from './components/call-doc';
export { MonitoringV2Sections, V2_TOC } from './components/monitoring-v2-sections';
