/** A service of an enterprise (stay or additional), with the rates vouchers and restrictions use. */
export interface SimService {
  Id: string;
  EnterpriseId: string;
  Name: string;
  kind: 'Stay' | 'Additional';
  rateIds: string[];
  rateGroupIds: string[];
}

/** A product sold by a service; priced per day in the enterprise's time zone. */
export interface SimProduct {
  Id: string;
  ServiceId: string;
  EnterpriseId: string;
  Name: string;
  /** Gross price of one day before the weekday factor. */
  basePrice: number;
}

/** One property of the chain, with the facts pricing and amounts need. */
export interface SimEnterprise {
  Id: string;
  ChainId: string;
  Name: string;
  /** IANA zone: a Day time unit starts at local midnight here. */
  timeZone: string;
  currency: string;
  countryCode: string;
  /** VAT rate code and relative rate used in amounts. */
  taxRateCode: string;
  taxRate: number;
  services: SimService[];
  ageCategoryIds: string[];
}

/** The static part of the dataset: who exists, not what changes. */
export interface SimWorld {
  /** The first enterprise's chain (the only one unless each enterprise has its own). */
  chainId: string;
  /** Every chain, in the order of their first enterprise. */
  chainIds: string[];
  enterprises: SimEnterprise[];
  products: SimProduct[];
  companyIds: string[];
  /** Staff profile ids used as creators and updaters. */
  profileIds: string[];
}
