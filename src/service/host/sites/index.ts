// Site configs: per-domain settings that work against a site, applied as defaults.
export { SiteConfigs } from './site-configs.js';
