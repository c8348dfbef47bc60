import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { describeStateStoreContract } from './state-store.contract.ts';

describeStateStoreContract('MemoryStateStore', async () => new MemoryStateStore());
