export { PlaywrightExecutor, responseBody } from './exec.js';
