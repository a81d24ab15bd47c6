export { CATEGORIES } from './config.js';
export { TelemetryHub } from './hub.js';
export { OtlpExporter } from './otlp.js';
export type { OtlpDestination } from './otlp.js';
export { withOurTypes } from './egress.js';
