/** The state table of local runs. */
export const LOCAL_TABLE_NAME = 'change-bridge';
