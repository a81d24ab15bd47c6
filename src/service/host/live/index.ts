export { LiveViews, liveViewPageUrl, liveViewPath } from './live-views.js';
export type { LiveViewEvents } from './live-views.js';
