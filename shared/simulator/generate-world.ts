import type { SimRandom } from './sim-random.ts';
import type { SimEnterprise, SimProduct, SimService, SimWorld } from './world.ts';

interface PropertyTemplate {
  name: string;
  timeZone: string;
  currency: string;
  countryCode: string;
  taxRateCode: string;
  taxRate: number;
}

// Three properties in different zones and currencies, so Day-unit pricing and currency
// conversion are exercised across DST rules.
const PROPERTIES: readonly PropertyTemplate[] = [
  {
    name: 'Hotel Vltava Praha',
    timeZone: 'Europe/Prague',
    currency: 'CZK',
    countryCode: 'CZ',
    taxRateCode: 'CZ-2024-12',
    taxRate: 0.12,
  },
  {
    name: 'Harbour House London',
    timeZone: 'Europe/London',
    currency: 'GBP',
    countryCode: 'GB',
    taxRateCode: 'UK-2024-20',
    taxRate: 0.2,
  },
  {
    name: 'Alpenhof Wien',
    timeZone: 'Europe/Vienna',
    currency: 'EUR',
    countryCode: 'AT',
    taxRateCode: 'AT-2024-10',
    taxRate: 0.1,
  },
];

const PRODUCTS: readonly { name: string; price: number; service: 'Stay' | 'Additional' }[] = [
  { name: 'Breakfast', price: 18, service: 'Stay' },
  { name: 'Parking', price: 25, service: 'Stay' },
  { name: 'City tax', price: 2.5, service: 'Stay' },
  { name: 'Late check-out', price: 30, service: 'Stay' },
  { name: 'Spa entrance', price: 35, service: 'Additional' },
  { name: 'Airport transfer', price: 60, service: 'Additional' },
];

/**
 * Builds the chain, its enterprises, services, products, companies and staff profiles; with
 * `chainPerEnterprise`, every enterprise is a chain of its own (independent hotels).
 * `enterpriseCount` (default 3) properties cycle through the three templates; from the fourth
 * on, the name carries the property's number.
 */
export function generateWorld(
  random: SimRandom,
  companyCount: number,
  enterpriseCount = PROPERTIES.length,
  chainPerEnterprise = false,
): SimWorld {
  const chainId = random.uuid();
  const enterprises: SimEnterprise[] = Array.from({ length: enterpriseCount }, (_, index) => {
    const template = PROPERTIES[index % PROPERTIES.length]!;
    const name = index < PROPERTIES.length ? template.name : `${template.name} ${index + 1}`;
    const id = random.uuid();
    const ownChain = chainPerEnterprise && index > 0 ? random.uuid() : chainId;
    const service = (kind: 'Stay' | 'Additional', name: string): SimService => ({
      Id: random.uuid(),
      EnterpriseId: id,
      Name: name,
      kind,
      rateIds: [random.uuid(), random.uuid(), random.uuid()],
      rateGroupIds: [random.uuid()],
    });
    return {
      Id: id,
      ChainId: ownChain,
      Name: name,
      timeZone: template.timeZone,
      currency: template.currency,
      countryCode: template.countryCode,
      taxRateCode: template.taxRateCode,
      taxRate: template.taxRate,
      services: [service('Stay', 'Accommodation'), service('Additional', 'Wellness & Transfers')],
      ageCategoryIds: [random.uuid(), random.uuid()],
    };
  });
  const products: SimProduct[] = [];
  for (const enterprise of enterprises) {
    // CZK prices are roughly 25 times the EUR figure.
    const factor = enterprise.currency === 'CZK' ? 25 : 1;
    for (const product of PRODUCTS) {
      const service = enterprise.services.find((s) => s.kind === product.service)!;
      products.push({
        Id: random.uuid(),
        ServiceId: service.Id,
        EnterpriseId: enterprise.Id,
        Name: product.name,
        basePrice: product.price * factor,
      });
    }
  }
  const companyIds = Array.from({ length: companyCount }, () => random.uuid());
  const profileIds = Array.from({ length: 12 }, () => random.uuid());
  const chainIds = [...new Set(enterprises.map((enterprise) => enterprise.ChainId))];
  return { chainId, chainIds, enterprises, products, companyIds, profileIds };
}
