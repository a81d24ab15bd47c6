export { CodegenRecorders, type CodegenFields, type CodegenStart } from './recorders.js';
