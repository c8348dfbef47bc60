/** The dummy account id in the local queues' URLs and ARNs. */
export const EMULATOR_ACCOUNT_ID = '000000000000';

/** The region of the local queues and of their clients. */
export const EMULATOR_REGION = 'us-east-1';
