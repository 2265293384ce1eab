/** What other features may use of monitoring (the rest is the feature's own). */
export { PlanChannels } from './components/plan-channels';
