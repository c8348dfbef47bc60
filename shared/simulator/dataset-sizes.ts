/** Dataset sizes: small (hundreds of records), medium (~10k customers), large (~100k). */
export type DatasetSize = 'small' | 'medium' | 'large';

/** How many records of each kind a dataset size seeds. */
export interface SizeProfile {
  customers: number;
  roomsPerEnterprise: number;
  notes: number;
  memberships: number;
  paymentRequests: number;
  reservationGroups: number;
  productCategoriesPerEnterprise: number;
  billingAutomationsPerEnterprise: number;
  routingRulesPerEnterprise: number;
  companies: number;
}

/** The record counts of each dataset size. */
export const SIZES: Readonly<Record<DatasetSize, SizeProfile>> = {
  small: {
    customers: 300,
    roomsPerEnterprise: 20,
    notes: 120,
    memberships: 100,
    paymentRequests: 100,
    reservationGroups: 60,
    productCategoriesPerEnterprise: 6,
    billingAutomationsPerEnterprise: 3,
    routingRulesPerEnterprise: 3,
    companies: 12,
  },
  medium: {
    customers: 10_000,
    roomsPerEnterprise: 80,
    notes: 3_000,
    memberships: 2_500,
    paymentRequests: 3_000,
    reservationGroups: 1_500,
    productCategoriesPerEnterprise: 12,
    billingAutomationsPerEnterprise: 8,
    routingRulesPerEnterprise: 8,
    companies: 60,
  },
  large: {
    customers: 100_000,
    roomsPerEnterprise: 200,
    notes: 30_000,
    memberships: 25_000,
    paymentRequests: 30_000,
    reservationGroups: 15_000,
    productCategoriesPerEnterprise: 20,
    billingAutomationsPerEnterprise: 20,
    routingRulesPerEnterprise: 20,
    companies: 300,
  },
};
