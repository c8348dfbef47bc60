import { z } from 'zod';
import { DateTimeSchema, LocalizedTextSchema, UuidSchema } from './common.ts';
import { SpaceFeatureSchema } from './customer.ts';

/** Data of a space resource (discriminator `Space`). */
export const SpaceDataSchema = z.looseObject({
  FloorNumber: z.string().min(1),
  LocationNotes: z.string().nullable().optional(),
  ExternalNames: LocalizedTextSchema,
  Directions: LocalizedTextSchema,
});
/** Data of a space resource. */
export type SpaceData = z.infer<typeof SpaceDataSchema>;

/** A resource (a room, a bed, a desk...) of an enterprise. */
export const ResourceSchema = z.looseObject({
  Id: UuidSchema,
  EnterpriseId: UuidSchema,
  IsActive: z.boolean(),
  ParentResourceId: UuidSchema.nullable().optional(),
  Name: z.string().min(1),
  // Allowed values are not shown in the contract: a plain string.
  State: z.string().min(1),
  Descriptions: LocalizedTextSchema,
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
  // SpaceData is the only documented value; the discriminator stays open (`Space` today).
  Data: z.looseObject({ Discriminator: z.string(), Value: SpaceDataSchema }),
});
/** A resource of an enterprise. */
export type Resource = z.infer<typeof ResourceSchema>;

/** Resource category types. */
export const ResourceCategoryTypeSchema = z.enum([
  'Room',
  'Bed',
  'Dorm',
  'Apartment',
  'Suite',
  'Villa',
  'Site',
  'Office',
  'MeetingRoom',
  'ParkingSpot',
  'Desk',
  'TeamArea',
  'Membership',
  'Tent',
  'CaravanOrRV',
  'UnequippedCampsite',
  'Bike',
  'ExtraBed',
  'Cot',
  'Crib',
  'ConferenceRoom',
  'Rooftop',
  'Garden',
  'Restaurant',
  'Amphitheater',
  'PrivateSpaces',
]);
/** Resource category type. */
export type ResourceCategoryType = z.infer<typeof ResourceCategoryTypeSchema>;

/** Resource category classifications. */
export const ResourceCategoryClassificationSchema = z.enum([
  'StandardSingle',
  'StandardDouble',
  'SuperiorTwin',
  'SuperiorDouble',
  'JuniorSuite',
  'SharedOrDorm',
  'Other',
  'SuperiorSingle',
  'Triple',
  'Family',
  'StandardTwin',
  'Studio',
  'SuperiorTripleRoom',
  'OneBedroomApartment',
  'ThreeBedroomsApartment',
  'TwoBedroomsApartment',
]);
/** Resource category classification. */
export type ResourceCategoryClassification = z.infer<typeof ResourceCategoryClassificationSchema>;

/** Longest resource category external identifier. */
export const EXTERNAL_IDENTIFIER_MAX_CHARS = 255;

/** A resource category (deprecated in the API, still returned by resources/getAll). */
export const ResourceCategorySchema = z.looseObject({
  Id: UuidSchema,
  EnterpriseId: UuidSchema,
  ServiceId: UuidSchema,
  IsActive: z.boolean(),
  Type: ResourceCategoryTypeSchema,
  Classification: ResourceCategoryClassificationSchema,
  Names: LocalizedTextSchema,
  ShortNames: LocalizedTextSchema,
  Descriptions: LocalizedTextSchema,
  Ordering: z.number().int(),
  Capacity: z.number().int(),
  ExtraCapacity: z.number().int(),
  ExternalIdentifier: z.string().max(EXTERNAL_IDENTIFIER_MAX_CHARS).nullable().optional(),
  AccountingCategoryId: UuidSchema.nullable().optional(),
});
/** A resource category. */
export type ResourceCategory = z.infer<typeof ResourceCategorySchema>;

/** The link of a resource to a category (deprecated). */
export const ResourceCategoryAssignmentSchema = z.looseObject({
  Id: UuidSchema,
  IsActive: z.boolean(),
  ResourceId: UuidSchema,
  CategoryId: UuidSchema,
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
});
/** The link of a resource to a category. */
export type ResourceCategoryAssignment = z.infer<typeof ResourceCategoryAssignmentSchema>;

/** The link of an image to a resource category (deprecated inside resources/getAll). */
export const ResourceCategoryImageAssignmentSchema = z.looseObject({
  Id: UuidSchema,
  IsActive: z.boolean(),
  CategoryId: UuidSchema,
  ImageId: UuidSchema,
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
});
/** The link of an image to a resource category. */
export type ResourceCategoryImageAssignment = z.infer<typeof ResourceCategoryImageAssignmentSchema>;

/** A resource feature (deprecated). */
export const ResourceFeatureSchema = z.looseObject({
  Id: UuidSchema,
  ServiceId: UuidSchema,
  IsActive: z.boolean(),
  Classification: SpaceFeatureSchema,
  Names: LocalizedTextSchema,
  ShortNames: LocalizedTextSchema,
  Descriptions: LocalizedTextSchema,
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
});
/** A resource feature. */
export type ResourceFeature = z.infer<typeof ResourceFeatureSchema>;

/** The link of a resource to a feature (deprecated). */
export const ResourceFeatureAssignmentSchema = z.looseObject({
  Id: UuidSchema,
  IsActive: z.boolean(),
  ResourceId: UuidSchema,
  FeatureId: UuidSchema,
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
});
/** The link of a resource to a feature. */
export type ResourceFeatureAssignment = z.infer<typeof ResourceFeatureAssignmentSchema>;
