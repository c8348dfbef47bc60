import type { ResourceCategory, ResourceFeature } from '../connector/records/index.ts';
import { makeResource } from './factories-property.ts';
import type { SimModel } from './model.ts';
import { iso } from './sim-random.ts';
import type { SimEnterprise } from './world.ts';

const CATEGORIES: readonly {
  name: string;
  type: ResourceCategory['Type'];
  classification: ResourceCategory['Classification'];
  capacity: number;
}[] = [
  { name: 'Standard Double', type: 'Room', classification: 'StandardDouble', capacity: 2 },
  { name: 'Superior Twin', type: 'Room', classification: 'SuperiorTwin', capacity: 2 },
  { name: 'Junior Suite', type: 'Suite', classification: 'JuniorSuite', capacity: 3 },
  { name: 'Dorm', type: 'Dorm', classification: 'SharedOrDorm', capacity: 4 },
  { name: 'Dorm bed', type: 'Bed', classification: 'SharedOrDorm', capacity: 1 },
];

const FEATURES: readonly ResourceFeature['Classification'][] = [
  'SeaView',
  'Balcony',
  'AirConditioning',
  'AccessibleRoom',
];

/**
 * Rooms on floors (the last room of each enterprise is a dorm with four beds inside it),
 * their categories, features and the deprecated assignment records linking them.
 */
export function generateResources(
  model: SimModel,
  roomsPerEnterprise: number,
  start: number,
): void {
  for (const enterprise of model.world.enterprises)
    generateFor(model, enterprise, roomsPerEnterprise, start);
}

function generateFor(
  model: SimModel,
  enterprise: SimEnterprise,
  rooms: number,
  start: number,
): void {
  const random = model.random;
  const meta = (createdMs: number) => ({
    enterpriseId: enterprise.Id,
    chainId: enterprise.ChainId,
    createdMs,
    updatedMs: createdMs,
  });
  const stay = enterprise.services.find((service) => service.kind === 'Stay')!;
  const created = iso(start);
  const categories = CATEGORIES.map((template, index) => {
    const category: ResourceCategory = {
      Id: random.uuid(),
      EnterpriseId: enterprise.Id,
      ServiceId: stay.Id,
      IsActive: true,
      Type: template.type,
      Classification: template.classification,
      Names: { 'en-US': template.name },
      ShortNames: { 'en-US': template.name.slice(0, 3).toUpperCase() },
      Descriptions: { 'en-US': `${template.name} for up to ${template.capacity}` },
      Ordering: index,
      Capacity: template.capacity,
      ExtraCapacity: template.type === 'Room' ? 1 : 0,
      ExternalIdentifier: null,
      AccountingCategoryId: null,
    };
    model.resourceCategories.insert(category, meta(start));
    for (let image = 0; image < 2; image += 1) {
      model.resourceCategoryImageAssignments.insert(
        {
          Id: random.uuid(),
          IsActive: true,
          CategoryId: category.Id,
          ImageId: random.uuid(),
          CreatedUtc: created,
          UpdatedUtc: created,
        },
        meta(start),
      );
    }
    return category;
  });
  const features = FEATURES.map((classification) => {
    const feature: ResourceFeature = {
      Id: random.uuid(),
      ServiceId: stay.Id,
      IsActive: true,
      Classification: classification,
      Names: { 'en-US': classification },
      ShortNames: { 'en-US': classification.slice(0, 4) },
      Descriptions: {},
      CreatedUtc: created,
      UpdatedUtc: created,
    };
    model.resourceFeatures.insert(feature, meta(start));
    return feature;
  });
  const assign = (resourceId: string, categoryId: string, createdMs: number) =>
    model.resourceCategoryAssignments.insert(
      {
        Id: random.uuid(),
        IsActive: true,
        ResourceId: resourceId,
        CategoryId: categoryId,
        CreatedUtc: iso(createdMs),
        UpdatedUtc: iso(createdMs),
      },
      meta(createdMs),
    );
  for (let i = 0; i < rooms; i += 1) {
    const floor = 1 + Math.floor(i / 10);
    const name = `${floor}${String((i % 10) + 1).padStart(2, '0')}`;
    const createdMs = start + i * 60_000;
    const isDorm = i === rooms - 1;
    const room = makeResource(model, enterprise, name, floor, createdMs);
    model.resources.insert(room, meta(createdMs));
    assign(room.Id, isDorm ? categories[3]!.Id : random.pick(categories.slice(0, 3)).Id, createdMs);
    for (const feature of random.subset(features, 2)) {
      model.resourceFeatureAssignments.insert(
        {
          Id: random.uuid(),
          IsActive: true,
          ResourceId: room.Id,
          FeatureId: feature.Id,
          CreatedUtc: iso(createdMs),
          UpdatedUtc: iso(createdMs),
        },
        meta(createdMs),
      );
    }
    if (isDorm) {
      for (let bed = 1; bed <= 4; bed += 1) {
        const bedResource = makeResource(
          model,
          enterprise,
          `${name}-${bed}`,
          floor,
          createdMs,
          room.Id,
        );
        model.resources.insert(bedResource, meta(createdMs));
        assign(bedResource.Id, categories[4]!.Id, createdMs);
      }
    }
  }
}
