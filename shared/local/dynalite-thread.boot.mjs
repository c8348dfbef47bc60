// Entry of the local DynamoDB's worker thread: a worker does not inherit its parent's module
// loader, so tsx is registered here before the TypeScript module is loaded.
import { register } from 'tsx/esm/api';

register();
await import('./dynalite-thread.ts');
