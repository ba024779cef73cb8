/** Every port the use cases depend on, one module per kind; adapters implement them. */
export type * from './ports/files.js';
export type * from './ports/identity.js';
export type * from './ports/runtime.js';
export type * from './ports/store.js';
