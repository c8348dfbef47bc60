import type {
  AccountingCategory,
  BillingAutomation,
  Export,
  ProductCategory,
  Resource,
  RoutingRule,
  Voucher,
} from '../connector/records/index.ts';
import type { SimModel } from './model.ts';
import { iso } from './sim-random.ts';
import type { SimEnterprise } from './world.ts';

const ROOM_STATES = ['Clean', 'Dirty', 'Inspected', 'Clean', 'OutOfService'] as const;

/** A room (or, with a parent, a bed inside a dorm room) of an enterprise. */
export function makeResource(
  model: SimModel,
  enterprise: SimEnterprise,
  name: string,
  floor: number,
  createdMs: number,
  parentId: string | null = null,
): Resource {
  const random = model.random;
  return {
    Id: random.uuid(),
    EnterpriseId: enterprise.Id,
    IsActive: true,
    ParentResourceId: parentId,
    Name: name,
    State: random.pick(ROOM_STATES),
    Descriptions: parentId
      ? { 'en-US': `Bed ${name} in a shared dorm` }
      : { 'en-US': `Room ${name}`, 'cs-CZ': `Pokoj ${name}` },
    CreatedUtc: iso(createdMs),
    UpdatedUtc: iso(createdMs),
    Data: {
      Discriminator: 'Space',
      Value: {
        FloorNumber: String(floor),
        LocationNotes: random.chance(0.2) ? 'Next to the lift' : null,
        ExternalNames: {},
        Directions: {
          'en-US': `Floor ${floor}, turn ${random.pick(['left', 'right'])} from the lift`,
        },
      },
    },
  };
}

const ACCOUNTING: readonly [string, AccountingCategory['Classification']][] = [
  ['Accommodation', 'Accommodation'],
  ['Breakfast', 'FoodAndBeverage'],
  ['Restaurant', 'FoodAndBeverage'],
  ['Bar', 'FoodAndBeverage'],
  ['City tax', 'Taxes'],
  ['Card payments', 'Payments'],
  ['Cash payments', 'Payments'],
  ['Spa', 'Wellness'],
  ['Parking', 'Facilities'],
  ['Transfers', 'Tourism'],
  ['Conference rooms', 'Events'],
  ['Miscellaneous', null],
];

/** The accounting categories of an enterprise, one per chart-of-accounts line. */
export function makeAccountingCategories(
  model: SimModel,
  enterprise: SimEnterprise,
  createdMs: number,
): AccountingCategory[] {
  return ACCOUNTING.map(([name, classification], index) => ({
    Id: model.random.uuid(),
    EnterpriseId: enterprise.Id,
    IsActive: true,
    Name: name,
    Code: `AC${String(index + 1).padStart(3, '0')}`,
    ExternalCode: `EXT-${index + 1}`,
    LedgerAccountCode: String(600 + index),
    PostingAccountCode: String(311 + index),
    CostCenterCode: `CC${(index % 3) + 1}`,
    Classification: classification,
    CreatedUtc: iso(createdMs),
    UpdatedUtc: iso(createdMs),
  }));
}

/** A billing automation of an enterprise with one or two service assignments. */
export function makeBillingAutomation(
  model: SimModel,
  enterprise: SimEnterprise,
  accountingCategoryIds: readonly string[],
  createdMs: number,
): BillingAutomation {
  const random = model.random;
  const id = random.uuid();
  const recurring = random.chance(0.3);
  const services = random.chance(0.5) ? enterprise.services : enterprise.services.slice(0, 1);
  return {
    Id: id,
    EnterpriseId: enterprise.Id,
    Name: random.pick([
      'Company stays to company bill',
      'Travel agency prepaid',
      'Monthly corporate invoice',
    ]),
    Description: random.chance(0.5) ? 'Routes stay items of contracted companies' : null,
    CompaniesWithRelations: random.subset(model.world.companyIds, 3).map((companyId) => ({
      CompanyId: companyId,
      CompanyRelations: { PartnerCompany: random.chance(0.5), TravelAgency: random.chance(0.5) },
    })),
    Prepayment: random.pick(['All', 'Prepaid'] as const),
    AssignmentTargetType: random.pick(['CompanyAsDetails', 'CompanyAsOwner', 'NoCompany'] as const),
    TriggerType: recurring ? 'Recurring' : random.pick(['Continuous', 'Legacy'] as const),
    BillAggregationType: random.pick([
      'OnePerReservation',
      'AggregateByCustomer',
      'AggregateAll',
      'AggregatePerReservationGroup',
    ] as const),
    CreatedUtc: iso(createdMs),
    ProcessingStartOffset: recurring ? 'P1D' : null,
    ...(recurring ? { OrderItemConsumptionPeriod: 'SameMonth' as const } : {}),
    Assignments: services.map((service) => ({
      Id: random.uuid(),
      BillingAutomationId: id,
      ServiceId: service.Id,
      RoutedItemTypes: {
        SpaceOrder: random.chance(0.7),
        CityTax: random.chance(0.5),
        AllProducts: random.chance(0.3),
        Deposits: random.chance(0.2),
        AdditionalExpenses: random.chance(0.2),
        AllCustomItems: random.chance(0.2),
      },
      RateIds: random.subset(service.rateIds, 2),
      ProductCategoryIds: null,
      ProductIds: null,
      AccountingCategoryAssignments: random.subset(accountingCategoryIds, 2).map((categoryId) => ({
        AccountingCategoryId: categoryId,
        ItemTypes: { Products: true, CustomItems: random.chance(0.5) },
      })),
    })),
  };
}

const PRODUCT_CATEGORY_NAMES = [
  'Food',
  'Drinks',
  'Wellness',
  'Transport',
  'Extras',
  'Packages',
] as const;

/** A product category of a service, optionally below a parent. */
export function makeProductCategory(
  model: SimModel,
  enterprise: SimEnterprise,
  parent: ProductCategory | null,
  createdMs: number,
): ProductCategory {
  const random = model.random;
  const name = random.pick(PRODUCT_CATEGORY_NAMES);
  return {
    Id: random.uuid(),
    EnterpriseId: enterprise.Id,
    ServiceId: parent?.ServiceId ?? random.pick(enterprise.services).Id,
    Names: { 'en-US': parent ? `${name} (${parent.Names['en-US'] ?? 'sub'})` : name },
    ShortNames: { 'en-US': name.slice(0, 4) },
    Descriptions: {},
    ...(parent ? { ParentProductCategory: { Id: parent.Id, Names: parent.Names } } : {}),
    UpdatedUtc: iso(createdMs),
    CreatedUtc: iso(createdMs),
    Ordering: random.int(0, 20),
  };
}

/** A routing rule for a company of an enterprise. */
export function makeRoutingRule(
  model: SimModel,
  enterprise: SimEnterprise,
  createdMs: number,
): RoutingRule {
  const random = model.random;
  const selected = random.chance(0.4);
  return {
    Id: random.uuid(),
    EnterpriseId: enterprise.Id,
    CompanyId: random.pick(model.world.companyIds),
    CompanyRelation: random.pick(['PartnerCompany', 'TravelAgency'] as const),
    Applicability: random.pick(['Always', 'PrepaidOnly'] as const),
    RouteType: selected ? 'SelectedStayItems' : 'AllStayItems',
    ServiceId: enterprise.services[0]!.Id,
    ...(selected
      ? {
          SelectedStayItems: {
            Nights: true,
            CityTax: random.chance(0.5),
            ProductCategoryIds: null,
          },
        }
      : {}),
    CreatedUtc: iso(createdMs),
    UpdatedUtc: iso(createdMs),
  };
}

/** A public or company voucher of a service. */
export function makeVoucher(model: SimModel, serviceId: string, createdMs: number): Voucher {
  const random = model.random;
  const type = random.pick(['Public', 'PartnerCompany', 'TravelAgency'] as const);
  return {
    Id: random.uuid(),
    ServiceId: serviceId,
    Name: random.pick(['SUMMER10', 'Corporate rate', 'Spring promo', 'TA special']),
    CreatedUtc: iso(createdMs),
    UpdatedUtc: iso(createdMs),
    Type: type,
    ActivityState: 'Active',
    CompanyId: type === 'PartnerCompany' ? random.pick(model.world.companyIds) : null,
    TravelAgencyId: type === 'TravelAgency' ? random.pick(model.world.companyIds) : null,
    OccupiableIntervalStartUtc: null,
    OccupiableIntervalEndUtc: null,
    ExternalIdentifier: null,
  };
}

/** A freshly requested export: Pending with no files. */
export function makeExport(model: SimModel): Export {
  return {
    Id: model.random.uuid(),
    Status: 'Pending',
    EntityType: 'OrderItem',
    Files: [],
    ExpiresUtc: null,
  };
}
