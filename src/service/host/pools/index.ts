export { PoolManager, presentPool } from './pools.js';
export type { PoolSettings, PoolUpdate } from './pools.js';
export type { LivePool } from './pool.js';
export { PoolMembers, type MemberOps, type MemberInfo, type LeaseTerms, type ReleaseTicket } from './members.js';
